import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pidState } from '../../io/process-alive.js';
import type { OpenMarker } from '../adapter.js';

/** A pid that is alive and, where the command line can be read (Linux), a Copilot process: a reused pid is not the holder. */
async function isCopilotProcess(pid: number): Promise<boolean> {
  if (pidState(pid, null) !== 'alive') return false;
  if (process.platform !== 'linux') return true;
  const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
  return cmd === null ? true : /copilot/i.test(cmd);
}

/**
 * The pid of the Copilot CLI that has this session open, else null. While it runs, Copilot keeps
 * `inuse.<pid>.lock` (its pid) and `inuse.<pid>.hold` (held open) in the session's folder and
 * removes both on exit (measured, 1.0.102); a marker whose process is gone (a kill -9) is stale.
 */
export async function copilotHolder(transcript: string): Promise<number | null> {
  for (const name of await readdir(dirname(transcript)).catch(() => [] as string[])) {
    const m = /^inuse\.(\d+)\.lock$/.exec(name);
    if (m && (await isCopilotProcess(Number(m[1])))) return Number(m[1]);
  }
  return null;
}

/** Every session a live Copilot CLI holds under its root (`session-state/<id>/inuse.<pid>.lock`); Copilot records no busy/idle. */
export async function copilotOpenSessions(root: string): Promise<OpenMarker[]> {
  const dir = join(root, 'session-state');
  const out: OpenMarker[] = [];
  for (const id of await readdir(dir).catch(() => [] as string[])) {
    if (id.startsWith('.')) continue;
    const pid = await copilotHolder(join(dir, id, 'events.jsonl'));
    if (pid !== null) out.push({ sessionId: id, cwd: null, pid, status: 'unknown', since: null });
  }
  return out;
}
