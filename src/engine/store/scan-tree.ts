import { RACY_MS, statFreshAt, type StatCache } from './stat-cache.js';
import { RowsBuilder } from './tree-rows.js';
import type { Skipped } from './tree-state.js';
import { readLinkTarget, specialKind, walkInto, type DirListing } from './walk-tree.js';

/**
 * The tree as a walk just saw it, compared with the stat cache as it went: one row per file, link
 * and really empty directory (TreeRows' columns, still being filled). A file whose lstat matches
 * its cache row keeps that row's hash without being read (`from`: the cache row; its ref is taken
 * from there only when asked); `toRead` lists the rows to read and hash.
 */
export interface Scan {
  rows: RowsBuilder;
  /** The cache row whose content a row has (-1: none, its ref is its own or still to read). */
  from: number[];
  toRead: number[];
  /** Specials (never opened) and files over the size limit. */
  skipped: Skipped[];
  /** When the walk started: entries changed around then are racy for the next one. */
  walkStart: number;
  /** The directories as listed (or kept from the cache's listings): for the next cache. */
  listings: Map<string, DirListing> | null;
  /** Directories listed anew, and kept as the cache listed them. */
  listed: number;
  reused: number;
}

export interface ScanOptions {
  /** Paths read whatever their stat says (the agent named them). */
  touched?: ReadonlySet<string>;
  maxFileBytes?: number;
}

/**
 * Walks the tree (walkInto: lstat only) and compares each entry with the cache as it comes. Rows
 * are in strict path order (an empty directory that came early is sorted into place).
 */
export function scanTree(root: string, cache: StatCache | null, o: ScanOptions = {}): Scan {
  const walkStart = Date.now();
  const rows = new RowsBuilder();
  const from: number[] = [];
  const toRead: number[] = [];
  const skipped: Skipped[] = [];
  const crows = cache?.rows ?? null;
  crows?.rewind();
  const written = cache?.written ?? 0;
  const touched = o.touched && o.touched.size ? o.touched : null;
  const max = o.maxFileBytes;
  const walk = walkInto(root, {
    entry(rel, abs, st) {
      const ci = crows ? crows.find(rel) : -1;
      if (st.isFile()) {
        const size = st.size;
        if (max !== undefined && size > max) {
          skipped.push({ path: rel, size, reason: `larger than ${max} bytes` });
          return;
        }
        const fresh = ci >= 0 && !touched?.has(rel) && statFreshAt(crows!, ci, size, st.mtimeMs, st.ctimeMs, st.ino, written);
        const i = rows.push(rel, 0, st.mode & 0o777, size, st.mtimeMs, st.ctimeMs, st.ino, null);
        from.push(fresh ? ci : -1);
        if (!fresh) toRead.push(i);
        return;
      }
      if (st.isSymbolicLink()) {
        // A link never changes in place: one with the same inode and times, out of the racy window, keeps its target.
        const same = ci >= 0 && crows!.kinds[ci] === 1 && crows!.inos[ci] === st.ino && crows!.mtimes[ci] === st.mtimeMs && crows!.ctimes[ci] === st.ctimeMs && st.mtimeMs < written - RACY_MS;
        rows.push(rel, 1, 0o777, 0, st.mtimeMs, st.ctimeMs, st.ino, same ? null : readLinkTarget(abs));
        from.push(same ? ci : -1);
        return;
      }
      skipped.push({ path: rel, size: 0, reason: `${specialKind(st)}: recorded, never opened` });
    },
    emptyDir(rel, st) {
      rows.push(rel, 2, st.mode & 0o777, 0, st.mtimeMs, st.ctimeMs, st.ino, '');
      from.push(-1);
    },
    skip(rel, what) {
      skipped.push({ path: rel, size: 0, reason: what });
    },
  }, cache?.dirs ?? null);
  if (!strictlySorted(rows.paths)) sortScan(rows, from, toRead);
  return { rows, from, toRead, skipped, walkStart, listings: walk.listings, listed: walk.listed, reused: walk.reused };
}

function strictlySorted(paths: readonly string[]): boolean {
  for (let i = 1; i < paths.length; i++) if (!(paths[i - 1]! < paths[i]!)) return false;
  return true;
}

/** Puts rows (and what points at them) in path order: only when an empty directory came early. */
function sortScan(rows: RowsBuilder, from: number[], toRead: number[]): void {
  const order = rows.paths.map((_, i) => i).sort((a, b) => (rows.paths[a]! < rows.paths[b]! ? -1 : rows.paths[a]! > rows.paths[b]! ? 1 : 0));
  const where = new Array<number>(order.length);
  order.forEach((old, now) => (where[old] = now));
  const re = <T>(xs: T[]) => order.map((old) => xs[old]!);
  rows.paths = re(rows.paths);
  rows.kinds = re(rows.kinds);
  rows.modes = re(rows.modes);
  rows.sizes = re(rows.sizes);
  rows.mtimes = re(rows.mtimes);
  rows.ctimes = re(rows.ctimes);
  rows.inos = re(rows.inos);
  rows.refs = order.map((old) => rows.refs[old] ?? null);
  const f = re(from);
  for (let i = 0; i < f.length; i++) from[i] = f[i]!;
  const t = toRead.map((i) => where[i]!).sort((a, b) => a - b);
  for (let i = 0; i < t.length; i++) toRead[i] = t[i]!;
}
