import { RewindError } from '../errors.js';
import { acquireLock } from '../io/lock-file.js';

/** A checkpoint can take a while on a big tree; a lock older than this is stale even if its pid is reused. */
const MAX_AGE_MS = 10 * 60_000;

/** A lock file created with O_EXCL: one writer of a store at a time (hooks can run in parallel). */
export async function withLock<T>(path: string, fn: () => Promise<T>, waitMs = 10_000): Promise<T> {
  const lock = await acquireLock(path, {
    waitMs,
    maxAgeMs: MAX_AGE_MS,
    busy: (o) => new RewindError('IO', `the checkpoint store is busy (${path}${o ? `, held by pid ${o.pid}` : ''}); try again`),
  });
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
