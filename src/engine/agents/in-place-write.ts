import { appendFile, constants, copyFile, link, mkdir, open, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RewindError } from '../errors.js';
import { cleanStaleTemps, writeFileAtomic } from '../io/atomic-write.js';
import { fingerprintFile, fingerprintHandle, sameFingerprint, type Fingerprint } from '../io/fingerprint.js';
import { readRange } from '../io/read-range.js';
import { ensureStore } from '../project.js';
import { backupPathFor } from './backup-path.js';

/**
 * The one in-place rewrite every agent's writer goes through (Claude's, the shared cut writer's,
 * Codex's). The caller holds the transcript's lock (`inPlaceLocked`) and an open handle on the
 * file it planned from; this then:
 * - takes the backup as a hard link of that very inode (a copy where links are not possible), so
 *   whatever an agent appends to the old file after our last look is in the backup too;
 * - writes the new content to a temp file and, right before the rename, looks again at the path:
 *   the same inode, the same size, the same head and tail as planned, or nothing is replaced;
 * - after the rename, carries over to the new file whatever reached the old inode in between (an
 *   agent appending by path in the instant before the rename, or one holding the old file open).
 */

/** A transcript opened for planning: the handle stays open until the rewrite is done. */
export interface HeldTranscript {
  path: string;
  fh: FileHandle;
  size: number;
  ino: number;
  dev: number;
  /** Head and tail of the planned bytes. */
  fp: Fingerprint;
}

const notFound = (path: string) => (e: NodeJS.ErrnoException) => {
  if (e.code === 'ENOENT') throw new RewindError('NO_TRANSCRIPT', `transcript not found: ${path}`);
  throw e;
};

export async function holdTranscript(path: string): Promise<HeldTranscript> {
  // Looked at before it is opened: opening a FIFO would wait forever.
  if (!(await stat(path).catch(notFound(path))).isFile()) throw new RewindError('INVALID_TRANSCRIPT', `not a transcript file: ${path}`);
  const fh = await open(path, 'r').catch(notFound(path));
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new RewindError('INVALID_TRANSCRIPT', `not a transcript file: ${path}`);
    return { path, fh, size: st.size, ino: st.ino, dev: st.dev, fp: await fingerprintHandle(fh, st.size) };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** The planned bytes, read through the held handle (never a second open of the path). */
export async function heldBytes(held: HeldTranscript): Promise<Buffer> {
  return readRange(held.fh, 0, held.size);
}

/** Still exactly what was planned from: at the path (same inode, same size) and in the handle (same head and tail). */
export async function unchangedSince(held: HeldTranscript): Promise<'same' | 'grew' | 'changed'> {
  const atPath = await stat(held.path).catch(() => null);
  if (!atPath || atPath.ino !== held.ino || atPath.dev !== held.dev || atPath.size < held.size) return 'changed';
  if (!sameFingerprint(await fingerprintHandle(held.fh, held.size), held.fp)) return 'changed';
  const size = (await held.fh.stat()).size;
  return atPath.size === held.size && size === held.size ? 'same' : 'grew';
}

export interface InPlaceResult {
  backupPath: string;
  /** The transcript as planned (what undo expects the backup to start with). */
  original: Fingerprint;
  /** The transcript after the rewrite (and any carried-over bytes): what undo expects to find. */
  result: Fingerprint;
  /** Bytes an agent appended during the rewrite, carried over to the new file. */
  carried: number;
}

/**
 * Replaces the held transcript by what `write` puts in a temp file, with the guarantees above.
 * `sessionId` names the backup (validated as an id there). Throws TRANSCRIPT_CHANGED, and leaves
 * no backup or temp behind, when the file moved on before the rename.
 */
export async function replaceInPlace(opts: {
  held: HeldTranscript;
  projectRoot: string;
  sessionId: string;
  time: number;
  write: (out: FileHandle) => Promise<void>;
  /** Test seam: runs after the last look, just before the rename (where a live agent's append is hardest to keep). */
  afterLastLook?: () => Promise<void>;
}): Promise<InPlaceResult> {
  const { held } = opts;
  const backupPath = backupPathFor(opts.projectRoot, opts.sessionId, opts.time);
  await cleanStaleTemps(dirname(held.path));
  const backupDir = dirname(backupPath);
  await ensureStore(opts.projectRoot);
  const madeBackupDir = !(await stat(backupDir).catch(() => null))?.isDirectory();
  await mkdir(backupDir, { recursive: true, mode: 0o700 });
  let madeBackup = false;
  // Only what this run made: a backup of the same name from an earlier rewrite (EEXIST) stays.
  const dropBackup = async () => {
    if (madeBackup) await unlink(backupPath).catch(() => undefined);
    if (madeBackupDir) await rmdir(backupDir).catch(() => undefined);
  };
  try {
    if ((await unchangedSince(held)) !== 'same') throw changed();
    // A hard link keeps the very inode the agent may still hold open; a copy where links are not possible.
    await link(held.path, backupPath).catch(async (e: NodeJS.ErrnoException) => {
      if (e.code === 'EEXIST') throw e;
      await copyFile(held.path, backupPath, constants.COPYFILE_EXCL);
    });
    madeBackup = true;
    const backup = await fingerprintFile(backupPath);
    if (backup.size < held.size) throw new RewindError('IO', `backup is incomplete: ${backupPath}`);
    await writeFileAtomic(held.path, opts.write, {
      beforeRename: async () => {
        // Last look, after the fsync: a replaced file or an append now, and nothing is replaced.
        if ((await unchangedSince(held)) !== 'same') throw changed();
        await opts.afterLastLook?.();
      },
    });
  } catch (e) {
    await dropBackup();
    throw e;
  }
  const carried = await carryOver(held.fh, held.size, held.path);
  return { backupPath, original: held.fp, result: await fingerprintFile(held.path), carried };
}

const changed = () => new RewindError('TRANSCRIPT_CHANGED', 'transcript changed while we were writing (the agent is running): nothing was replaced, run again when it is idle');

/** Appends to `path` whatever the old file (still open as `fh`) gained past `from`, until it settles. */
async function carryOver(fh: FileHandle, from: number, path: string): Promise<number> {
  let done = from;
  for (let quiet = 0; quiet < 3; ) {
    const size = (await fh.stat()).size;
    if (size > done) {
      await appendFile(path, await readRange(fh, done, size - done));
      done = size;
      quiet = 0;
    } else quiet++;
    if (done === from && quiet > 0) break; // nothing arrived: the common case costs one stat
    await new Promise((r) => setTimeout(r, 10));
  }
  return done - from;
}

export function carriedWarning(bytes: number): string[] {
  return bytes > 0 ? [`carried ${bytes} byte(s) the agent appended during the rewrite over to the new transcript`] : [];
}
