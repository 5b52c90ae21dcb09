import { join } from 'node:path';
import type { Entry, Manifest } from './manifest.js';
import { hashFile, type ObjectStore } from './objects.js';
import { cacheFromManifest, readStatCache, statFresh, type CacheEntry, type StatCache } from './stat-cache.js';
import { walkTree, type WalkEntry } from './walk-tree.js';

export interface NodeState {
  kind: 'f' | 'l' | 'd';
  /** Blob sha256 for files, the target for symlinks, '' for directories. */
  ref: string;
  mode: number;
  size: number;
  /** From the walk, when the state was read from disk: lets it serve as a stat cache. */
  mtimeMs?: number;
  ctimeMs?: number;
  ino?: number;
}

export type TreeState = Map<string, NodeState>;

/** A path a checkpoint or a read of the tree passed over, and why (in the user's words). */
export interface Skipped {
  path: string;
  size: number;
  reason: string;
}

/** The files a read of the tree could not read, by the tree it returned (restore leaves them alone). */
export const unreadableIn = new WeakMap<TreeState, Skipped[]>();

export function treeFromEntries(entries: Entry[]): TreeState {
  return new Map(entries.map((e) => [e[0], { kind: e[1], ref: e[2], mode: e[3], size: e[4] }]));
}

/** Why a file could not be read, in words, or null for an error that is not about that file. */
export function readFailure(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EACCES' || code === 'EPERM') return `unreadable (${code}): not copied, left as it is on restore`;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'vanished while the checkpoint was taken';
  if (code === 'EISDIR' || code === 'ELOOP' || code === 'ENXIO' || code === 'EAGAIN') return `not a regular file any more (${code})`;
  if (code === 'EIO' || code === 'EBUSY') return `unreadable (${code})`;
  return null;
}

export interface ReadTreeOptions {
  /** Where a file read is stored (a checkpoint); none: only hashed. */
  store?: ObjectStore;
  /** Paths read whatever their stat says (the agent named them: the stat may not show a write in the same tick). */
  touched?: Set<string>;
  /** Files larger than this are skipped. */
  maxFileBytes?: number;
  /** Hashes already known for a path's current content (a preview read them). */
  knownRefs?: Map<string, string>;
}

export interface ReadTree {
  entries: Map<string, CacheEntry>;
  skipped: Skipped[];
  hashed: number;
}

/**
 * The walked tree with content hashes: a file whose stat matches the cache keeps its hash unread;
 * the others are read (8 at a time: reading is I/O bound). A file that cannot be read, or is gone
 * by then, is skipped and named; a FIFO, socket or device is named and never opened.
 */
export async function readTree(root: string, walked: WalkEntry[], cache: StatCache | null, o: ReadTreeOptions = {}): Promise<ReadTree> {
  const out: (CacheEntry | null)[] = new Array(walked.length);
  const skipped: Skipped[] = [];
  let hashed = 0;
  const written = cache?.written ?? 0;
  const one = async (w: WalkEntry): Promise<CacheEntry | null> => {
    const at = { mtimeMs: w.mtimeMs, ...(w.ctimeMs !== undefined ? { ctimeMs: w.ctimeMs } : {}), ino: w.ino };
    if (w.kind === 'dir') return { kind: 'd', ref: '', mode: w.mode, size: 0, ...at };
    if (w.kind === 'symlink') return { kind: 'l', ref: w.target ?? '', mode: 0o777, size: 0, ...at };
    if (w.kind === 'special') {
      skipped.push({ path: w.path, size: 0, reason: `${w.what ?? 'not a regular file'}: recorded, never opened` });
      return null;
    }
    if (o.maxFileBytes !== undefined && w.size > o.maxFileBytes) {
      skipped.push({ path: w.path, size: w.size, reason: `larger than ${o.maxFileBytes} bytes` });
      return null;
    }
    const c = cache?.entries.get(w.path);
    if (!o.touched?.has(w.path) && statFresh(c, w, written)) return { kind: 'f', ref: c.ref, mode: w.mode, size: w.size, ...at };
    const known = o.knownRefs?.get(w.path);
    if (known) return { kind: 'f', ref: known, mode: w.mode, size: w.size, ...at };
    try {
      const ref = o.store ? await o.store.putFile(join(root, w.path), w.size) : await hashFile(join(root, w.path));
      hashed++;
      return { kind: 'f', ref, mode: w.mode, size: w.size, ...at };
    } catch (err) {
      const reason = readFailure(err);
      if (!reason) throw err;
      skipped.push({ path: w.path, size: w.size, reason });
      return null;
    }
  };
  // Most files are unchanged: their entries are made here, synchronously (20,000 promises cost more
  // than the stat compare itself); only the others are read, 8 at a time.
  const toRead: number[] = [];
  walked.forEach((w, i) => {
    if (w.kind === 'file' && (o.maxFileBytes === undefined || w.size <= o.maxFileBytes) && !o.touched?.has(w.path)) {
      const c = cache?.entries.get(w.path);
      if (statFresh(c, w, written)) {
        out[i] = { kind: 'f', ref: c.ref, mode: w.mode, size: w.size, mtimeMs: w.mtimeMs, ...(w.ctimeMs !== undefined ? { ctimeMs: w.ctimeMs } : {}), ino: w.ino };
        return;
      }
    }
    toRead.push(i);
  });
  let next = 0;
  const worker = async () => {
    while (next < toRead.length) {
      const i = toRead[next++]!;
      out[i] = await one(walked[i]!);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const entries = new Map<string, CacheEntry>();
  walked.forEach((w, i) => {
    const e = out[i];
    if (e) entries.set(w.path, e);
  });
  skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { entries, skipped, hashed };
}

/** The best stat cache there is: the cache file when it is the newest checkpoint's, else that manifest. */
export async function bestCache(root: string, newest: Manifest | null): Promise<StatCache | null> {
  const c = await readStatCache(root);
  if (c && (!newest || c.checkpoint === newest.id)) return c;
  return newest ? cacheFromManifest(newest) : c;
}

/**
 * The tree as it is on disk now, with content hashes. A file whose stat matches the stat cache
 * (or the newest manifest) is not read. Files that cannot be read are left out and listed in
 * `unreadableIn`.
 */
export async function currentTree(root: string, newest: Manifest | null): Promise<TreeState> {
  const r = await readTree(root, await walkTree(root), await bestCache(root, newest));
  const out: TreeState = new Map();
  for (const [p, e] of r.entries) out.set(p, { ...e });
  unreadableIn.set(out, r.skipped);
  return out;
}
