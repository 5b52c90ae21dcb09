import { constants } from 'node:fs';
import { link, lstat, open, stat, unlink } from 'node:fs/promises';
import { isInside, realish as resolved } from '../guard.js';
import { RewindError } from '../errors.js';
import { tempPathFor, writeFileAtomic } from '../io/atomic-write.js';

export interface ExportTarget {
  /** Replace a regular file that is there (atomically); without it the file is created exclusively. */
  force: boolean;
  /** Every agent's root (the registry's): nothing is written inside one. */
  roots: string[];
  /** The transcript being exported: never written over. */
  source?: string;
}

const refuse = (out: string, why: string) => new RewindError('UNSAFE_PATH', `refusing to write the export to ${out}: ${why}; nothing was written`);

/** A file whose first line is a JSON object: what every agent's transcript starts with. */
async function looksLikeTranscript(path: string): Promise<boolean> {
  const fh = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(() => null);
  if (!fh) return false;
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const first = buf.toString('utf8', 0, bytesRead).split('\n')[0]!.trim();
    if (!first.startsWith('{')) return false;
    try {
      const v: unknown = JSON.parse(first);
      return typeof v === 'object' && v !== null;
    } catch {
      return false;
    }
  } finally {
    await fh.close();
  }
}

/**
 * Checks where an export may go: a regular file or nothing (never a device, a FIFO, a folder or a
 * link), outside every agent's root, never the transcript itself or another one. Returns whether a
 * file is there now.
 */
export async function checkExportTarget(out: string, t: ExportTarget): Promise<boolean> {
  const where = await resolved(out);
  for (const root of t.roots) {
    if (isInside(root, out) || isInside(await resolved(root), where)) throw refuse(out, `it is inside an agent's folder (${root})`);
  }
  const st = await lstat(out).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (!st) return false;
  if (st.isSymbolicLink()) throw refuse(out, 'it is a symbolic link');
  if (!st.isFile()) throw refuse(out, 'it is not a regular file (a device, a FIFO or a folder)');
  if (t.source) {
    const src = await stat(t.source).catch(() => null);
    if (src && src.ino === st.ino && src.dev === st.dev) throw refuse(out, 'it is the session being exported');
  }
  if (await looksLikeTranscript(out)) throw refuse(out, 'it looks like an agent transcript');
  if (!t.force) throw new RewindError('USAGE', `${out} exists (pass --force to replace it)`);
  return true;
}

/**
 * Writes an export file (user-only: it holds code and prompts). Without `force` it is created
 * exclusively: filled beside the target, then hard-linked into place (fails if a file appeared there
 * meanwhile), so a reader never sees half of it and nothing that appears is replaced. With `force`
 * it replaces a regular file atomically (temp + rename), checked again right before the rename.
 */
export async function writeExportFile(out: string, content: string, t: ExportTarget): Promise<void> {
  await checkExportTarget(out, t);
  const fill = async (path: string, flags: string) => {
    const fh = await open(path, flags, 0o600);
    try {
      await fh.writeFile(content);
      await fh.sync();
    } finally {
      await fh.close();
    }
  };
  if (t.force) {
    await writeFileAtomic(out, (fh) => fh.writeFile(content), { mode: 0o600, beforeRename: () => checkExportTarget(out, t).then(() => undefined) });
    return;
  }
  const tmp = tempPathFor(out);
  await fill(tmp, 'wx');
  try {
    await link(tmp, out);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new RewindError('USAGE', `${out} exists (pass --force to replace it)`);
    // A file system without hard links: an exclusive create, written in place.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
      await fill(out, 'wx').catch((e2: NodeJS.ErrnoException) => {
        throw e2.code === 'EEXIST' ? new RewindError('USAGE', `${out} exists (pass --force to replace it)`) : e2;
      });
    } else throw e;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}
