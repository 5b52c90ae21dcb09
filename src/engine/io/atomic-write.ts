import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { linkRefused } from './own-file.js';

let counter = 0;

/**
 * A temp name in the same directory, so the final rename never crosses file systems. Unique, not
 * secret (files are opened with 'wx', which never clobbers): no node:crypto on the start-up path.
 */
export function tempPathFor(target: string): string {
  const unique = `${process.pid}-${Date.now().toString(36)}-${(++counter).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return join(dirname(target), `.${basename(target)}.${unique}.tmp`);
}

/**
 * The one pattern behind every write here: fill a temp file beside the target, rename it over the
 * target, remove the temp on any failure. `durable` also fsyncs the directory so the rename
 * survives a crash (the filler fsyncs the file itself). A link at the target is refused before
 * anything is written (a rename would not follow it, but it is not the file the caller means: a
 * link a project shipped, or a user's link whose target the caller should have resolved).
 */
async function commitViaTemp(target: string, fill: (tmp: string) => Promise<void>, durable: boolean, beforeRename?: () => Promise<void>): Promise<void> {
  if ((await lstat(target).catch(() => null))?.isSymbolicLink()) throw linkRefused(target);
  const tmp = tempPathFor(target);
  try {
    await fill(tmp);
    await beforeRename?.();
    await rename(tmp, target);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    // A failed write names what it was writing (a full disk while copying names the copy, not its source).
    const err = e as NodeJS.ErrnoException & { dest?: string };
    if (err && typeof err.code === 'string') {
      if (err.dest === tmp) err.dest = target;
      else if (!err.path || err.path === tmp) err.path = target;
    }
    throw e;
  }
  if (durable) await syncDir(dirname(target));
}

/**
 * Writes a file atomically: temp file in the target's directory, fsync, rename over the target,
 * fsync the directory. Readers see the old file or the new one, never a mix. `mode` defaults to
 * 0o600 because transcripts and copies of code may hold secrets.
 */
export async function writeFileAtomic(
  target: string,
  write: (fh: FileHandle) => Promise<void>,
  opts: { mode?: number; beforeRename?: () => Promise<void> } = {},
): Promise<void> {
  await commitViaTemp(
    target,
    async (tmp) => {
      const fh = await open(tmp, 'wx', opts.mode ?? 0o600);
      try {
        // The mode exactly (the umask would take bits off a config's own mode, 0o664 say).
        if (opts.mode !== undefined) await fh.chmod(opts.mode);
        await write(fh);
        await fh.sync();
      } finally {
        await fh.close();
      }
    },
    true,
    // The last look at the target (after the fsync, which can take a while): nothing in between.
    opts.beforeRename,
  );
}

export async function writeBufferAtomic(target: string, data: Buffer | string, opts: { mode?: number } = {}): Promise<void> {
  await writeFileAtomic(target, async (fh) => {
    await fh.writeFile(data);
  }, opts);
}

/** Makes a rename durable; not supported on every platform (Windows), where it is a no-op. */
export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Directory fsync is best effort.
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Atomically writes the first `length` bytes of `source` to `target` using the kernel's file copy
 * (copy_file_range, or a reflink where the file system has them), then truncates: as fast as `cp`,
 * and still all-or-nothing. `verify` runs on the finished temp file before the rename.
 */
export async function copyPrefixAtomic(
  source: string,
  target: string,
  length: number,
  verify?: (tmp: string) => Promise<void>,
  opts: { mode?: number; durable?: boolean } = {},
): Promise<void> {
  const { copyFile, constants, chmod } = await import('node:fs/promises');
  const durable = opts.durable !== false;
  // On ext4 a directory fsync commits the journal, which writes out the new file's data too: a
  // non-durable copy skips both fsyncs, or it would pay for a full sync after all.
  await commitViaTemp(
    target,
    async (tmp) => {
      await copyFile(source, tmp, constants.COPYFILE_EXCL);
      await chmod(tmp, opts.mode ?? 0o600);
      const fh = await open(tmp, 'r+');
      try {
        await fh.truncate(length);
        if (durable) await fh.sync();
      } finally {
        await fh.close();
      }
      await verify?.(tmp);
    },
    durable,
  );
}

/**
 * Temp file then rename, without fsync: for caches that are checked when read (a checksum) and
 * rebuilt when damaged, so a power cut can cost a rebuild but never a wrong answer.
 */
export async function writeCacheFileAtomic(target: string, data: Buffer | readonly Buffer[]): Promise<void> {
  await commitViaTemp(
    target,
    async (tmp) => {
      const fh = await open(tmp, 'wx', 0o600);
      try {
        // Parts are written one after the other (a caller need not copy them into one buffer).
        if (Buffer.isBuffer(data)) await fh.writeFile(data);
        else for (const part of data) await fh.writeFile(part);
      } finally {
        await fh.close();
      }
    },
    false,
  );
}

/** Our temp names: `.<target name>.<pid>-<time>-<n>-<random>.tmp`. */
const TEMP_NAME = /^\..+\.(\d+)-([0-9a-z]+)-[0-9a-z]+-[0-9a-z]+\.tmp$/;

/**
 * Removes temp files a killed writer left in `dir`: ours by name, whose process is gone (or that
 * are over a day old). Best effort; returns how many went.
 */
export async function cleanStaleTemps(dir: string): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  const names = await readdir(dir).catch(() => [] as string[]);
  let n = 0;
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const age = Date.now() - parseInt(m[2]!, 36);
    const { processAlive } = await import('./process-alive.js');
    const gone = pid !== process.pid && !processAlive(pid);
    if (gone || age > 24 * 3600_000) {
      await unlink(join(dir, name)).then(() => n++, () => undefined);
    }
  }
  return n;
}
