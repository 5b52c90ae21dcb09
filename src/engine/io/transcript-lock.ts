import { RewindError } from '../errors.js';
import { acquireLock, type Lock } from './lock-file.js';

/** Beside the transcript: one in-place rewrite (or undo) of a transcript at a time, whatever the agent. */
export function transcriptLockPath(transcriptPath: string): string {
  return `${transcriptPath}.rewind-lock`;
}

/** Pid and time inside; a stale lock (its process gone, or older than 10 minutes) is taken over. */
export async function lockTranscript(transcriptPath: string): Promise<Lock> {
  // What a rewrite killed mid-way left beside the transcript (its lock's own temp file included)
  // goes first, for every agent's writer: temps of live processes stay.
  const { cleanStaleTemps } = await import('./atomic-write.js');
  const { dirname } = await import('node:path');
  await cleanStaleTemps(dirname(transcriptPath));
  return acquireLock(transcriptLockPath(transcriptPath), {
    waitMs: 0,
    maxAgeMs: 10 * 60_000,
    busy: (o) => new RewindError('TRANSCRIPT_LIVE', `another Rewind is rewriting this transcript${o ? ` (pid ${o.pid})` : ''}: ${transcriptPath}; try again when it is done`),
  });
}

/**
 * Runs an in-place rewrite under the transcript's lock; forks and dry runs write nothing in the
 * transcript and go unlocked. The writer still re-checks the file before its rename: the lock
 * keeps other Rewinds out, not the agent.
 */
export async function inPlaceLocked<T>(req: { transcriptPath: string; mode: 'fork' | 'in-place'; dryRun?: boolean }, fn: () => Promise<T>): Promise<T> {
  if (req.mode !== 'in-place' || req.dryRun) return fn();
  const lock = await lockTranscript(req.transcriptPath);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
