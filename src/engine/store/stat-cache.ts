import { createHash } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import { readOwnBytes, readOwnText } from '../io/own-file.js';
import { storeDir } from '../project.js';
import type { Manifest } from './manifest.js';
import { kindCode, TreeRows, type CacheEntry } from './tree-rows.js';

export type { CacheEntry };

/**
 * Like git's index: for each path of the newest checkpoint, what it held and the lstat it had when
 * read, so the next checkpoint reads only the files whose stat changed. It is also the newest
 * checkpoint's tree: a checkpoint diffs against it without reading any manifest.
 */
export interface StatCache {
  /** The checkpoint whose tree this is (null: none, only a hash cache). */
  checkpoint: string | null;
  /** The checkpoint the cache file was written for (`checkpoint` may be a later one with the same tree). */
  file?: string | null;
  depth: number;
  /** Wall time when the walk that filled it started: entries changed around then are racy. */
  written: number;
  rows: TreeRows;
}

/**
 * Racy-clean (git's term): a file written within this long of the walk may change again within
 * the same timestamp tick (1-2 s on FAT and some network disks, a few ms on ext4) and keep size
 * and mtime. Such an entry is not trusted: the next checkpoint reads it again.
 */
export const RACY_MS = 2_000;

/**
 * The cache on disk, in columns (see TreeRows) rather than JSON: 20,000 rows parse in a few ms
 * instead of 40 and make no object per row.
 *
 *   "RWSC" | u32 version (2) | u32 header length | header JSON | zero padding to 8 bytes | body
 *   body: f64 sizes[n] | f64 mtimes[n] | f64 ctimes[n] (NaN: unknown) | f64 inos[n] | u16 modes[n]
 *         | u8 kinds[n] | paths, NUL-separated UTF-8 | refs, NUL-separated UTF-8
 *
 * The header names the checkpoint, the row count, the two text lengths, the byte order and the
 * body's sha256. The file is scratch state written without fsync: a torn, short, foreign-endian
 * or otherwise damaged one fails these checks and the newest manifest is read instead (a full,
 * correct read, only slower).
 */
const MAGIC = 'RWSC';
const VERSION = 2;
const file = (root: string) => join(storeDir(root), 'stat-cache.bin');
/** The JSON cache of earlier versions: removed when the first binary one is written. */
const oldFile = (root: string) => join(storeDir(root), 'stat-cache.json');
/**
 * A checkpoint that changed nothing and read nothing leaves the cache as it is (rewriting 20,000
 * rows costs more than the whole check): this small file names it as the newest checkpoint the
 * cache's tree is also the tree of.
 */
const headFile = (root: string) => join(storeDir(root), 'stat-cache.head.json');

interface Header {
  checkpoint: string | null;
  depth: number;
  written: number;
  n: number;
  pathBytes: number;
  refBytes: number;
  le: boolean;
  sha256: string;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const pad8 = (n: number) => (8 - (n % 8)) % 8;

/** A typed array over part of `buf`, copied when the part is not aligned for it. */
function view<T extends Float64Array | Uint16Array>(Ctor: { new (b: ArrayBuffer, o: number, n: number): T; BYTES_PER_ELEMENT: number }, buf: Buffer, at: number, n: number): T {
  const offset = buf.byteOffset + at;
  if (offset % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(buf.buffer as ArrayBuffer, offset, n);
  const copy = new Uint8Array(n * Ctor.BYTES_PER_ELEMENT);
  copy.set(buf.subarray(at, at + copy.length));
  return new Ctor(copy.buffer, 0, n);
}

/** Decodes a cache file; null when it is anything but whole and ours. */
export function decodeStatCache(buf: Buffer): Omit<StatCache, 'file'> | null {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== MAGIC || buf.readUInt32LE(4) !== VERSION) return null;
  const hlen = buf.readUInt32LE(8);
  if (12 + hlen > buf.length) return null;
  let h: Header;
  try {
    h = JSON.parse(buf.toString('utf8', 12, 12 + hlen)) as Header;
  } catch {
    return null;
  }
  const { n, pathBytes, refBytes } = h;
  if (!Number.isSafeInteger(n) || n < 0 || !Number.isSafeInteger(pathBytes) || !Number.isSafeInteger(refBytes) || typeof h.written !== 'number') return null;
  if (h.le !== LITTLE_ENDIAN || (h.checkpoint !== null && typeof h.checkpoint !== 'string') || typeof h.sha256 !== 'string') return null;
  const body = 12 + hlen + pad8(12 + hlen);
  if (buf.length !== body + n * 35 + pathBytes + refBytes) return null;
  if (createHash('sha256').update(buf.subarray(body)).digest('hex') !== h.sha256) return null;
  let at = body;
  const f64 = () => {
    const v = view(Float64Array, buf, at, n);
    at += n * 8;
    return v;
  };
  const sizes = f64();
  const mtimes = f64();
  const ctimes = f64();
  const inos = f64();
  const modes = view(Uint16Array, buf, at, n);
  at += n * 2;
  const kinds = buf.subarray(at, at + n);
  at += n;
  const paths = n ? buf.toString('utf8', at, at + pathBytes).split('\0') : [];
  at += pathBytes;
  const refsAt = at;
  if (paths.length !== n) return null;
  for (let i = 0; i < n; i++) if (kinds[i]! > 2) return null;
  const refs = () => {
    const r = n ? buf.toString('utf8', refsAt, refsAt + refBytes).split('\0') : [];
    // The checksum matched, so a count off here is a writer's bug: empty refs never match a file.
    return r.length === n ? r : new Array<string>(n).fill('');
  };
  return { checkpoint: h.checkpoint, depth: typeof h.depth === 'number' ? h.depth : 0, written: h.written, rows: new TreeRows(paths, kinds, modes, sizes, mtimes, ctimes, inos, refs) };
}

/** Encodes rows (in path order) as a cache file. */
export function encodeStatCache(c: Omit<StatCache, 'file'>): Buffer[] {
  const r = c.rows;
  const n = r.length;
  const nums = Buffer.alloc(n * 35);
  const f = new Float64Array(nums.buffer, nums.byteOffset, n * 4);
  const modes = new Uint16Array(nums.buffer, nums.byteOffset + n * 32, n);
  for (let i = 0; i < n; i++) {
    f[i] = r.sizes[i]!;
    f[n + i] = r.mtimes[i]!;
    f[2 * n + i] = r.ctimes[i]!;
    f[3 * n + i] = r.inos[i]!;
    modes[i] = r.modes[i]!;
    nums[n * 34 + i] = r.kinds[i]!;
  }
  const refs: string[] = new Array(n);
  for (let i = 0; i < n; i++) refs[i] = r.ref(i);
  const paths = Buffer.from(r.paths.join('\0'), 'utf8');
  const refText = Buffer.from(refs.join('\0'), 'utf8');
  const sha256 = createHash('sha256').update(nums).update(paths).update(refText).digest('hex');
  const header: Header = { checkpoint: c.checkpoint, depth: c.depth, written: c.written, n, pathBytes: paths.length, refBytes: refText.length, le: LITTLE_ENDIAN, sha256 };
  const h = Buffer.from(JSON.stringify(header), 'utf8');
  const lead = Buffer.alloc(12 + h.length + pad8(12 + h.length));
  lead.write(MAGIC, 0, 'latin1');
  lead.writeUInt32LE(VERSION, 4);
  lead.writeUInt32LE(h.length, 8);
  h.copy(lead, 12);
  return [lead, nums, paths, refText];
}

export async function readStatCache(root: string): Promise<StatCache | null> {
  let c: Omit<StatCache, 'file'> | null;
  try {
    const buf = await readOwnBytes(file(root));
    c = buf ? decodeStatCache(buf) : null;
  } catch {
    c = null;
  }
  if (!c) return null; // none yet, or damaged: the newest manifest stands in
  const head = await readOwnText(headFile(root))
    .then((t) => JSON.parse(t ?? 'null') as { base?: unknown; checkpoint?: unknown; depth?: unknown } | null)
    .catch(() => null);
  if (head && head.base === c.checkpoint && typeof head.checkpoint === 'string' && typeof head.depth === 'number') return { ...c, file: c.checkpoint, checkpoint: head.checkpoint, depth: head.depth };
  return { ...c, file: c.checkpoint };
}

/** The cache stands, unchanged, for checkpoint `checkpoint` too (see headFile). */
export async function writeStatCacheHead(root: string, base: string | null, checkpoint: string, depth: number): Promise<void> {
  await writeCacheFileAtomic(headFile(root), Buffer.from(JSON.stringify({ base, checkpoint, depth })));
}

/** Scratch state: no fsync (a torn or stale cache is noticed and the manifest read instead). */
export async function writeStatCache(root: string, c: Omit<StatCache, 'file'>): Promise<void> {
  await writeCacheFileAtomic(file(root), encodeStatCache(c));
  await unlink(oldFile(root)).catch(() => undefined);
}

/** A manifest as a cache: what an older store, or a lost cache, gives. */
export function cacheFromManifest(m: Manifest): StatCache {
  const rows = TreeRows.fromEntries(m.entries.map((e): [string, CacheEntry] => [e[0], { kind: e[1], ref: e[2], mode: e[3], size: e[4], mtimeMs: e[5], ino: e[6] }]));
  return { checkpoint: m.id, depth: m.depth ?? 0, written: Date.parse(m.time) || 0, rows };
}

/**
 * Whether a file's lstat says it still holds what row `i` of the cache read: same size, mtime,
 * inode and (when known) ctime, and its mtime out of the racy window of the walk that read it.
 */
export function statFreshAt(rows: TreeRows, i: number, size: number, mtimeMs: number, ctimeMs: number, ino: number, written: number): boolean {
  if (rows.kinds[i] !== 0 || rows.sizes[i] !== size || rows.mtimes[i] !== mtimeMs || rows.inos[i] !== ino) return false;
  const c = rows.ctimes[i]!;
  if (!Number.isNaN(c) && c !== ctimeMs) return false;
  // As git: racy by mtime (ctime differs above whenever anything rewrote the file since).
  return mtimeMs < written - RACY_MS;
}

export { kindCode };
