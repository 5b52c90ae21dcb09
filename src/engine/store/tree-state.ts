import { join } from 'node:path';
import type { Entry, Manifest } from './manifest.js';
import { hashFile, type ObjectStore } from './objects.js';
import { scanTree, type Scan } from './scan-tree.js';
import { cacheFromManifest, readStatCache, type StatCache } from './stat-cache.js';
import { RowsBuilder, TreeRows } from './tree-rows.js';

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

export interface ReadScanOptions {
  /** Where a file read is stored (a checkpoint); none: only hashed. */
  store?: ObjectStore;
  /** Hashes already known for a path's current content (a preview read them). */
  knownRefs?: Map<string, string>;
}

/** A scan with its files read: the tree in rows, what could not be read named. */
export interface ReadScan {
  rows: TreeRows;
  /** Per row, the cache row whose content it has (-1: read now, or not a file). */
  from: number[];
  skipped: Skipped[];
  hashed: number;
}

/**
 * Reads the files a scan could not vouch for by their stat (8 at a time: reading is I/O bound).
 * A file that cannot be read, or is gone by then, is left out and named; the rest keep the hash
 * their cache row has (taken from it only when asked).
 */
export async function readScan(root: string, scan: Scan, cache: StatCache | null, o: ReadScanOptions = {}): Promise<ReadScan> {
  const { rows, from, toRead } = scan;
  const skipped = [...scan.skipped];
  const dropped = new Set<number>();
  let hashed = 0;
  let next = 0;
  const worker = async () => {
    while (next < toRead.length) {
      const i = toRead[next++]!;
      const p = rows.paths[i]!;
      const known = o.knownRefs?.get(p);
      if (known) {
        rows.refs[i] = known;
        continue;
      }
      try {
        rows.refs[i] = o.store ? await o.store.putFile(join(root, p), rows.sizes[i]!) : await hashFile(join(root, p));
        hashed++;
      } catch (err) {
        const reason = readFailure(err);
        if (!reason) throw err;
        skipped.push({ path: p, size: rows.sizes[i]!, reason });
        dropped.add(i);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, toRead.length) }, worker));
  skipped.sort((a, b) => (a.path < b.path ? -1 : 1));
  const crows = cache?.rows ?? null;
  const source = crows ? { rows: crows, from } : null;
  // Nothing left out (nearly always): the scan's own columns are the tree, no copy of 20,000 rows.
  if (!dropped.size) return { rows: new TreeRows(rows.paths, rows.kinds, rows.modes, rows.sizes, rows.mtimes, rows.ctimes, rows.inos, rows.refs, source), from, skipped, hashed };
  const b = new RowsBuilder();
  const keptFrom: number[] = [];
  for (let i = 0; i < rows.paths.length; i++) {
    if (dropped.size && dropped.has(i)) continue;
    const f = from[i]!;
    // A fresh row's ref stays in the cache until asked for (a check that changed nothing never splits 20,000 refs).
    b.push(rows.paths[i]!, rows.kinds[i]!, rows.modes[i]!, rows.sizes[i]!, rows.mtimes[i]!, rows.ctimes[i]!, rows.inos[i]!, f >= 0 ? null : (rows.refs[i] ?? ''));
    keptFrom.push(f);
  }
  const out = new TreeRows(b.paths, b.kinds, b.modes, b.sizes, b.mtimes, b.ctimes, b.inos, b.refs, crows ? { rows: crows, from: keptFrom } : null);
  return { rows: out, from: keptFrom, skipped, hashed };
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
  const cache = await bestCache(root, newest);
  const r = await readScan(root, scanTree(root, cache), cache);
  const out: TreeState = new Map();
  for (let i = 0; i < r.rows.length; i++) out.set(r.rows.paths[i]!, r.rows.entry(i));
  unreadableIn.set(out, r.skipped);
  return out;
}
