import { link, lstat, open, unlink, writeFile } from 'node:fs/promises';
import { RewindError } from '../errors.js';
import { tempPathFor } from './atomic-write.js';
import { readConfigFile } from './config-file.js';
import { processAlive } from './process-alive.js';

/** What a lock file holds: who took it and when, so a stale one can be told from a busy one. */
export interface LockOwner {
  pid: number;
  time: number;
}


/** The owner of a lock file, or null when there is none or it is unreadable. */
export async function readLockOwner(path: string): Promise<LockOwner | null> {
  // Never through a link, never a blocking read: a project can ship a FIFO where a lock goes.
  if ((await lstat(path).catch(() => null))?.isSymbolicLink()) return null;
  const read = await readConfigFile(path, 4096).catch(() => null);
  if (read?.kind !== 'text') return null;
  const raw = read.text;
  try {
    const v = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof v.pid === 'number' && typeof v.time === 'number') return { pid: v.pid, time: v.time };
  } catch {
    // Older lock files held just the pid.
    const pid = Number(raw.trim());
    if (Number.isSafeInteger(pid) && pid > 0) return { pid, time: (await lstat(path).catch(() => null))?.mtimeMs ?? 0 };
  }
  return null;
}

/** How far ahead of this clock a lock's time may be (another machine's clock on a shared disk). */
const CLOCK_SLACK_MS = 2 * 60_000;

/**
 * Stale: its process is gone (on this machine), or it is older than `maxAgeMs` (a reused pid, a
 * lock from another machine on a shared disk), or its time is ahead of the clock (no Rewind wrote
 * it then: a lock file a project shipped, naming a live pid such as 1, would otherwise hold every
 * hook for ever), or it is unreadable and older than a few seconds.
 */
export async function isStale(path: string, maxAgeMs: number, now = Date.now()): Promise<boolean> {
  const owner = await readLockOwner(path);
  if (!owner) {
    const st = await lstat(path).catch(() => null);
    return !!st && now - st.mtimeMs > 5_000;
  }
  return owner.time > now + CLOCK_SLACK_MS || !processAlive(owner.pid) || now - owner.time > maxAgeMs;
}

/** A folder where a lock goes is none Rewind made (nor one it may remove): refused at once, never waited on. */
async function assertLockSlot(path: string): Promise<void> {
  if ((await lstat(path).catch(() => null))?.isDirectory()) throw new RewindError('UNSAFE_PATH', `${path} is not a lock file Rewind made (a folder): move it away; nothing was written`);
}

/**
 * The lock appears with its owner already inside (written to a temp file, then hard-linked into
 * place, which fails if the lock exists): a process killed while taking it never leaves an empty,
 * ownerless lock that would block the next run. Where hard links are not supported, O_EXCL.
 */
async function createWithContent(path: string, content: string): Promise<void> {
  const tmp = tempPathFor(path);
  try {
    await writeFile(tmp, content, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    // A full disk fails the write after the create: no empty temp is left beside the user's config.
    await unlink(tmp).catch(() => undefined);
    const err = e as NodeJS.ErrnoException;
    if (err && typeof err.code === 'string' && (!err.path || err.path === tmp)) err.path = path;
    throw e;
  }
  try {
    await link(tmp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw e;
    const fh = await open(path, 'wx', 0o600);
    try {
      await fh.writeFile(content);
    } finally {
      await fh.close();
    }
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

export interface Lock {
  release(): Promise<void>;
}

/**
 * Takes a lock file with O_EXCL (pid and time inside). Waits up to `waitMs` for a busy one;
 * removes a stale one. `busy` builds the error thrown when it stays busy.
 */
export async function acquireLock(path: string, opts: { waitMs: number; maxAgeMs: number; busy: (owner: LockOwner | null) => Error }): Promise<Lock> {
  const start = Date.now();
  for (;;) {
    try {
      await createWithContent(path, JSON.stringify({ pid: process.pid, time: Date.now() }));
      return { release: () => unlink(path).catch(() => undefined) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      await assertLockSlot(path);
      if (await isStale(path, opts.maxAgeMs)) {
        // Removed, or gone meanwhile; one that cannot be removed is refused (never a busy loop on it).
        await unlink(path).catch((u: NodeJS.ErrnoException) => {
          if (u.code !== 'ENOENT') throw new RewindError('UNSAFE_PATH', `${path} is a stale lock Rewind cannot remove (${u.code ?? u.message}): move it away; nothing was written`);
        });
        continue;
      }
      if (Date.now() - start >= opts.waitMs) throw opts.busy(await readLockOwner(path));
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
