import { constants } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { RewindError } from '../errors.js';

/**
 * The one place that opens the files Rewind writes as its own (its store under `.agent/rewind/`,
 * the backups beside an agent's config, logs): never through a link. A cloned project can ship a
 * link where Rewind expects its own file (`.agent/rewind/agent-writes.jsonl -> ~/.bashrc`); such a
 * path is refused in one line (`UNSAFE_PATH`) and nothing is written.
 *
 * O_NOFOLLOW refuses a link at the last part of the path; the folders above it are checked by
 * `ensureOwnDir` (no link between a trusted root and the file). Where O_NOFOLLOW does not exist
 * (Windows) the path is looked at before and after the open, and the two must be one file.
 * O_NONBLOCK: a FIFO put in the file's place never blocks the open (it is then refused).
 */

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

export const linkRefused = (path: string): RewindError =>
  new RewindError('UNSAFE_PATH', `${path} is a link where Rewind keeps its own file: Rewind does not write through a link it did not make; nothing was written`);

export const notRegularRefused = (path: string): RewindError =>
  new RewindError('UNSAFE_PATH', `${path} is not a regular file where Rewind keeps its own file: nothing was written`);

const isLinkError = (e: unknown) => {
  const code = (e as NodeJS.ErrnoException)?.code;
  // Linux and macOS say ELOOP for O_NOFOLLOW on a link; FreeBSD says EMLINK.
  return code === 'ELOOP' || code === 'EMLINK';
};

/** Opens one of Rewind's own files (`flags`: O_* numbers) without following a link; a regular file only. */
export async function openOwnFile(path: string, flags: number, mode = 0o600): Promise<FileHandle> {
  if (!NOFOLLOW && (await lstat(path).catch(() => null))?.isSymbolicLink()) throw linkRefused(path);
  let fh: FileHandle;
  try {
    fh = await open(path, flags | NOFOLLOW | NONBLOCK, mode);
  } catch (e) {
    if (isLinkError(e)) throw linkRefused(path);
    // A FIFO opened for writing without a reader.
    if ((e as NodeJS.ErrnoException).code === 'ENXIO') throw notRegularRefused(path);
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw notRegularRefused(path);
    if (!NOFOLLOW) {
      const now = await lstat(path);
      if (now.isSymbolicLink() || now.ino !== st.ino || now.dev !== st.dev) throw linkRefused(path);
    }
    return fh;
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e;
  }
}

/**
 * Appends to one of Rewind's own files (a journal, a log), created user-only when missing. A
 * link, a FIFO or a file with other hard links (a tarball can ship one to a file outside) is
 * refused: an append lands in Rewind's file or nowhere.
 */
export async function appendOwnFile(path: string, data: string | Buffer, mode = 0o600): Promise<void> {
  const fh = await openOwnFile(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, mode);
  try {
    if ((await fh.stat()).nlink > 1) throw new RewindError('UNSAFE_PATH', `${path} has other hard links where Rewind keeps its own file: nothing was written`);
    await fh.writeFile(data);
  } finally {
    await fh.close();
  }
}

/** Creates one of Rewind's own files only when it is not there (a link there counts as there); false: it was. */
export async function createOwnFileIfMissing(path: string, data: string | Buffer, mode = 0o600): Promise<boolean> {
  let fh: FileHandle;
  try {
    fh = await openOwnFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(data);
  } finally {
    await fh.close();
  }
  return true;
}

/**
 * Refuses a path where Rewind is about to put its own file (by rename or copy) when it holds a
 * link or anything but a regular file. A rename never writes through a link, but a link there is
 * not Rewind's and is refused rather than silently replaced.
 */
export async function assertOwnFileSlot(path: string): Promise<void> {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (!st) return;
  if (st.isSymbolicLink()) throw linkRefused(path);
  if (!st.isFile()) throw notRegularRefused(path);
}

/**
 * The folders from `root` (trusted, not checked) down to `root/rel`, each a real folder: made
 * (user-only) when missing, refused when one is a link or not a folder. Returns the deepest one.
 * A project shipping `.agent/rewind/objects -> /elsewhere` gets nothing written there.
 */
export async function ensureOwnDir(root: string, rel: string, opts: { create?: boolean; mode?: number } = {}): Promise<string> {
  let dir = root;
  for (const part of rel.split(/[\\/]+/).filter(Boolean)) {
    dir = join(dir, part);
    let st = await lstat(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (!st) {
      if (opts.create === false) return dir;
      await mkdir(dir, { mode: opts.mode ?? 0o700 }).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'EEXIST') throw e;
      });
      st = await lstat(dir);
    }
    if (st.isSymbolicLink()) throw new RewindError('UNSAFE_PATH', `${dir} is a link: Rewind does not write through a link it did not make; nothing was written`);
    if (!st.isDirectory()) throw new RewindError('UNSAFE_PATH', `${dir} is not a folder: nothing was written`);
  }
  return dir;
}

/**
 * The text of one of Rewind's own files, or null when it is missing or not a regular file (a FIFO
 * or a link a project shipped in its place): opened without following a link and without
 * blocking, so a hook never waits on it. Other errors are thrown.
 */
export async function readOwnText(path: string): Promise<string | null> {
  return (await readOwnBytes(path))?.toString('utf8') ?? null;
}

/** The same, as bytes (a binary file of Rewind's own: the stat cache). */
export async function readOwnBytes(path: string): Promise<Buffer | null> {
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || isLinkError(e)) return null;
    throw e;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return null;
    if (!NOFOLLOW && (await lstat(path).catch(() => null))?.isSymbolicLink()) return null;
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}
