import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bootId, pidNamespaceIno, pidRuns, procStartOf } from '../../io/process-alive.js';
import type { OpenMarker } from '../adapter.js';
import { livePidRecords, markerString, pidRecordOf, type PidRecord } from '../open-markers.js';

/** A pid namespace as `pidDomain` compares it (Qwen's `pidNs` is the inode of `/proc/self/ns/pid`). */
const nsDomain = (ino: unknown): string | null => (typeof ino === 'number' && Number.isInteger(ino) ? `pidns:${ino}` : null);

/**
 * Qwen Code's registry of a running TUI, `~/.qwen/sessions/<pid>.json` (FORMATS.md §2d):
 * `sessionId`, `procStart` = `<boot_id>:<start ticks>`, `pidNs` (Linux only). No busy/idle status.
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
  const r = o as Record<string, unknown>;
  return { ...base, procStart: markerString(r.procStart), pidDomain: nsDomain(r.pidNs), status: 'unknown' };
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
  // Qwen's own reading: a record of another pid namespace is not this one's (its pid means another process).
  const out = await livePidRecords(join(root, 'sessions'), parseQwenMarker, qwenProcStart, nsDomain(pidNamespaceIno()));
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
  if (pidRuns(pid, /qwen/) !== 'alive') return null;
  const started = typeof o.started_at === 'number' ? new Date(o.started_at * 1000).toISOString() : null;
  return { sessionId: typeof o.session_id === 'string' ? o.session_id : null, cwd: typeof o.work_dir === 'string' ? o.work_dir : null, pid, status: 'unknown', since: started };
}
