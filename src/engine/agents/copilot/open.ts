import { readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pidRuns } from '../../io/process-alive.js';
import { lockHolder } from '../../io/lock-probe.js';
import type { OpenMarker } from '../adapter.js';

/**
 * Is Copilot process `pid` holding the session folder `dir`? While it runs, Copilot keeps
 * `inuse.<pid>.lock` (its pid as text) and `inuse.<pid>.hold`, which it holds with an exclusive
 * flock, and removes both on exit (measured, 1.0.102). The lock on `.hold` decides, as Codex's
 * thread lock does: held = open (in any pid namespace), free = a crash's leftover (kill -9; the pid
 * may since be another process's). Where it cannot be probed (Windows) or no `.hold` is there: the
 * pid alive and, where its command line can be read, a Copilot process.
 */
async function holds(dir: string, pid: number): Promise<boolean> {
  const hold = join(dir, `inuse.${pid}.hold`);
  const probe = (await stat(hold).catch(() => null)) ? await lockHolder(hold) : null;
  if (probe) return probe.held;
  return pidRuns(pid, /copilot/i) === 'alive';
}

/** The pid of the Copilot CLI that has this session open, else null (stale markers left out). */
export async function copilotHolder(transcript: string): Promise<number | null> {
  const dir = dirname(transcript);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = /^inuse\.(\d+)\.lock$/.exec(name);
    if (m && (await holds(dir, Number(m[1])))) return Number(m[1]);
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
    if (pid === null) continue;
    // Written when Copilot took the session.
    const st = await stat(join(dir, id, `inuse.${pid}.lock`)).catch(() => null);
    out.push({ sessionId: id, cwd: null, pid, status: 'unknown', since: st ? st.mtime.toISOString() : null });
  }
  return out;
}
