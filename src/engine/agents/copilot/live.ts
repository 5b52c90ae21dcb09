import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Is this process running (one we may not signal counts)? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pid of the Copilot CLI that has this session open, else null. While it runs, Copilot keeps
 * `inuse.<pid>.lock` (its pid) and `inuse.<pid>.hold` (held open) in the session's folder and
 * removes both on exit (measured, 1.0.102); a marker whose process is gone (a kill -9) is stale.
 */
export async function copilotHolder(transcript: string): Promise<number | null> {
  for (const name of await readdir(dirname(transcript)).catch(() => [] as string[])) {
    const m = /^inuse\.(\d+)\.lock$/.exec(name);
    if (m && alive(Number(m[1]))) return Number(m[1]);
  }
  return null;
}
