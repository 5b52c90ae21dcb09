import { open, stat, unlink } from 'node:fs/promises';
import { RewindError } from '../errors.js';

const STALE_MS = 60_000;

/** A lock file created with O_EXCL: one writer of a store at a time (hooks can run in parallel). */
export async function withLock<T>(path: string, fn: () => Promise<T>, waitMs = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    try {
      const fh = await open(path, 'wx', 0o600);
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const st = await stat(path).catch(() => null);
      if (st && Date.now() - st.mtimeMs > STALE_MS) {
        await unlink(path).catch(() => undefined);
        continue;
      }
      if (Date.now() - start > waitMs) throw new RewindError('IO', `the checkpoint store is busy (${path}); try again`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  try {
    return await fn();
  } finally {
    await unlink(path).catch(() => undefined);
  }
}
