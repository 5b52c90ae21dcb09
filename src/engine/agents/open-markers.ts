import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pidDomain, pidState } from '../io/process-alive.js';
import type { OpenMarker } from './adapter.js';

/**
 * What the agents' per-process marker files (`<dir>/<pid>.json`: Claude Code's and Qwen Code's
 * session registries, FORMATS.md §2d) have in common, read by each agent's own parser.
 */
export interface PidRecord {
  pid: number;
  sessionId: string;
  cwd: string | null;
  /** The process's start time as the agent recorded it (compared to ours: a reused pid is another process). */
  procStart: string | null;
  /** Which machine and pid namespace the pid means (Claude Code); null: not recorded. */
  pidDomain: string | null;
  status: OpenMarker['status'];
  /** Ms since the epoch the agent started, when recorded. */
  startedAt: number | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The fields every pid marker carries, from its parsed JSON; null when it is not one. */
export function pidRecordOf(o: unknown): Omit<PidRecord, 'procStart' | 'pidDomain' | 'status'> | null {
  if (!o || typeof o !== 'object') return null;
  const r = o as Record<string, unknown>;
  const pid = num(r.pid);
  const sessionId = str(r.sessionId);
  if (pid === null || !Number.isInteger(pid) || pid <= 0 || !sessionId) return null;
  return { pid, sessionId, cwd: str(r.cwd), startedAt: num(r.startedAt) };
}

export { str as markerString };

/**
 * Whether a marker's process is the one that wrote it: alive, with the recorded start time, in
 * this pid namespace. `start` reads a pid's start time in the agent's format.
 */
export function recordLive(rec: PidRecord, start?: (pid: number) => string | null, domain: string | null = pidDomain()): boolean {
  if (rec.pidDomain && domain && rec.pidDomain !== domain) return false;
  return pidState(rec.pid, rec.procStart, start) === 'alive';
}

/**
 * The live records of `<dir>/<pid>.json` files, parsed by `parse` (unreadable or stale ones left
 * out). `start`: a pid's start time in the agent's format; `domain`: this machine and pid namespace
 * in the agent's format (Claude Code's `pidDomain` by default).
 */
export async function livePidRecords(dir: string, parse: (text: string) => PidRecord | null, start?: (pid: number) => string | null, domain: string | null = pidDomain()): Promise<OpenMarker[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: OpenMarker[] = [];
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue;
    const text = await readFile(join(dir, name), 'utf8').catch(() => null);
    const rec = text === null ? null : parse(text);
    // The file is named for its pid: a record naming another is not that process's.
    if (!rec || rec.pid !== Number(name.slice(0, -'.json'.length)) || !recordLive(rec, start, domain)) continue;
    out.push({ sessionId: rec.sessionId, cwd: rec.cwd, pid: rec.pid, status: rec.status, since: rec.startedAt === null ? null : new Date(rec.startedAt).toISOString() });
  }
  return out;
}
