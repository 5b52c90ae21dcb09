import { join } from 'node:path';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import { readOwnText } from '../io/own-file.js';
import { storeDir } from '../project.js';
import type { Manifest } from './manifest.js';
import type { WalkEntry } from './walk-tree.js';

/**
 * Like git's index: for each path of the newest checkpoint, what it held and the lstat it had when
 * read, so the next checkpoint reads only the files whose stat changed. It is also the newest
 * checkpoint's tree: a checkpoint diffs against it without reading any manifest.
 */
export interface CacheEntry {
  kind: 'f' | 'l' | 'd';
  ref: string;
  mode: number;
  size: number;
  mtimeMs: number;
  /** Absent in a cache made from an old manifest (no ctime recorded there). */
  ctimeMs?: number;
  ino: number;
}

export interface StatCache {
  /** The checkpoint whose tree this is (null: none, only a hash cache). */
  checkpoint: string | null;
  /** The checkpoint the cache file was written for (`checkpoint` may be a later one with the same tree). */
  file?: string | null;
  depth: number;
  /** Wall time when the walk that filled it started: entries changed around then are racy. */
  written: number;
  entries: Map<string, CacheEntry>;
}

/**
 * Racy-clean (git's term): a file written within this long of the walk may change again within
 * the same timestamp tick (1-2 s on FAT and some network disks, a few ms on ext4) and keep size
 * and mtime. Such an entry is not trusted: the next checkpoint reads it again.
 */
export const RACY_MS = 2_000;

const file = (root: string) => join(storeDir(root), 'stat-cache.json');
/**
 * A checkpoint that changed nothing and read nothing leaves the cache as it is (rewriting 20,000
 * rows costs more than the whole check): this small file names it as the newest checkpoint the
 * cache's tree is also the tree of.
 */
const headFile = (root: string) => join(storeDir(root), 'stat-cache.head.json');

type Row = [path: string, kind: 'f' | 'l' | 'd', ref: string, mode: number, size: number, mtimeMs: number, ctimeMs: number | null, ino: number];

export async function readStatCache(root: string): Promise<StatCache | null> {
  try {
    const v = JSON.parse((await readOwnText(file(root))) ?? 'null') as { v?: number; checkpoint?: unknown; depth?: unknown; written?: unknown; rows?: unknown };
    if (v.v !== 1 || (v.checkpoint !== null && typeof v.checkpoint !== 'string') || typeof v.written !== 'number' || !Array.isArray(v.rows)) return null;
    const entries = new Map<string, CacheEntry>();
    for (const r of v.rows as Row[]) {
      if (!Array.isArray(r) || r.length !== 8 || typeof r[0] !== 'string' || typeof r[2] !== 'string') return null;
      entries.set(r[0], { kind: r[1], ref: r[2], mode: r[3], size: r[4], mtimeMs: r[5], ...(r[6] === null ? {} : { ctimeMs: r[6] }), ino: r[7] });
    }
    const c: StatCache = { checkpoint: v.checkpoint as string | null, file: v.checkpoint as string | null, depth: typeof v.depth === 'number' ? v.depth : 0, written: v.written, entries };
    const head = JSON.parse((await readOwnText(headFile(root)).catch(() => null)) ?? 'null') as { base?: unknown; checkpoint?: unknown; depth?: unknown } | null;
    if (head && head.base === c.checkpoint && typeof head.checkpoint === 'string' && typeof head.depth === 'number') return { ...c, checkpoint: head.checkpoint, depth: head.depth };
    return c;
  } catch {
    return null; // none yet, or torn: the newest manifest stands in
  }
}

/** The cache stands, unchanged, for checkpoint `checkpoint` too (see headFile). */
export async function writeStatCacheHead(root: string, base: string | null, checkpoint: string, depth: number): Promise<void> {
  await writeCacheFileAtomic(headFile(root), Buffer.from(JSON.stringify({ base, checkpoint, depth })));
}

/** Scratch state: no fsync (a torn or stale cache is noticed and the manifest read instead). */
export async function writeStatCache(root: string, c: StatCache): Promise<void> {
  const rows: Row[] = [];
  for (const [p, e] of c.entries) rows.push([p, e.kind, e.ref, e.mode, e.size, e.mtimeMs, e.ctimeMs ?? null, e.ino]);
  await writeCacheFileAtomic(file(root), Buffer.from(JSON.stringify({ v: 1, checkpoint: c.checkpoint, depth: c.depth, written: c.written, rows })));
}

/** A manifest as a cache: what an older store, or a lost cache, gives. */
export function cacheFromManifest(m: Manifest): StatCache {
  const entries = new Map<string, CacheEntry>();
  for (const e of m.entries) entries.set(e[0], { kind: e[1], ref: e[2], mode: e[3], size: e[4], mtimeMs: e[5], ino: e[6] });
  return { checkpoint: m.id, depth: m.depth ?? 0, written: Date.parse(m.time) || 0, entries };
}

/** Whether a walked file still holds the cached content, by its stat alone. */
export function statFresh(c: CacheEntry | undefined, w: WalkEntry, written: number): c is CacheEntry {
  if (!c || c.kind !== 'f' || w.kind !== 'file') return false;
  if (c.size !== w.size || c.mtimeMs !== w.mtimeMs || c.ino !== w.ino) return false;
  if (c.ctimeMs !== undefined && w.ctimeMs !== undefined && c.ctimeMs !== w.ctimeMs) return false;
  // As git: racy by mtime (ctime differs above whenever anything rewrote the file since).
  return w.mtimeMs < written - RACY_MS;
}
