import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bootId, pidState, procStartOf } from '../../io/process-alive.js';
import type { OpenMarker } from '../adapter.js';
import { livePidRecords, markerString, pidRecordOf, type PidRecord } from '../open-markers.js';

/**
 * Qwen Code's registry of a running TUI, `~/.qwen/sessions/<pid>.json` (FORMATS.md §2d):
 * `sessionId`, `procStart` = `<boot_id>:<start ticks>` (Linux only). No busy/idle status.
 */
export function parseQwenMarker(text: string): PidRecord | null {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return null;
  }
  const base = pidRecordOf(o);
  if (!base) return null;
  return { ...base, procStart: markerString((o as Record<string, unknown>).procStart), pidDomain: null, status: 'unknown' };
}

/** A pid's start time as Qwen records it: `<boot_id>:<ticks>` on Linux, else null (not compared). */
export function qwenProcStart(pid: number): string | null {
  const ticks = procStartOf(pid);
  const boot = bootId();
  return ticks && boot && process.platform === 'linux' ? `${boot}:${ticks}` : null;
}

/**
 * The sessions open in a live Qwen Code under its root: its registry (written on Linux only, where
 * it can record the start time); elsewhere the `runtime.json` sidecars beside the sessions too.
 */
export async function qwenOpenSessions(root: string, platform: NodeJS.Platform = process.platform): Promise<OpenMarker[]> {
  const out = await livePidRecords(join(root, 'sessions'), parseQwenMarker, qwenProcStart);
  if (platform === 'linux') return out;
  for (const m of await qwenRuntimeMarkers(root)) if (!out.some((o) => o.sessionId === m.sessionId)) out.push(m);
  return out;
}

/** Every live `projects/<project>/chats/<id>.runtime.json` under the root. */
async function qwenRuntimeMarkers(root: string): Promise<OpenMarker[]> {
  const { readdir } = await import('node:fs/promises');
  const out: OpenMarker[] = [];
  for (const p of await readdir(join(root, 'projects')).catch(() => [] as string[])) {
    const chats = join(root, 'projects', p, 'chats');
    for (const n of await readdir(chats).catch(() => [] as string[])) {
      if (!n.endsWith('.runtime.json')) continue;
      const m = await qwenRuntimeMarker(join(chats, n.replace(/\.runtime\.json$/, '.jsonl')));
      if (m) out.push(m);
    }
  }
  return out;
}

function cmdlineHas(pid: number, word: string): boolean | null {
  if (process.platform !== 'linux') return null;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(word);
  } catch {
    return false;
  }
}

/**
 * The fallback marker beside a session, `<id>.runtime.json` (`{pid, session_id, work_dir,
 * started_at}`, never deleted by Qwen: only its pid being a live qwen process makes it open).
 */
export async function qwenRuntimeMarker(sessionPath: string): Promise<OpenMarker | null> {
  const text = await readFile(sessionPath.replace(/\.jsonl$/, '.runtime.json'), 'utf8').catch(() => null);
  if (text === null) return null;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  const pid = typeof o.pid === 'number' ? o.pid : NaN;
  if (pidState(pid, null) !== 'alive' || cmdlineHas(pid, 'qwen') === false) return null;
  const started = typeof o.started_at === 'number' ? new Date(o.started_at * 1000).toISOString() : null;
  return { sessionId: typeof o.session_id === 'string' ? o.session_id : null, cwd: typeof o.work_dir === 'string' ? o.work_dir : null, pid, status: 'unknown', since: started };
}
