import { createHash } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import { readOwnBytes, readOwnText } from '../io/own-file.js';
import { storeDir } from '../project.js';
import type { Manifest } from './manifest.js';
import { kindCode, TreeRows, type CacheEntry } from './tree-rows.js';
import type { DirListing, Listings } from './walk-tree.js';

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
  /** The directory listings of the walk that wrote it (none: every directory is listed). */
  dirs?: Listings | null;
}

/**
 * Racy-clean (git's term): a file written within this long of the walk may change again within
 * the same timestamp tick (1-2 s on FAT and some network disks, a few ms on ext4) and keep size
 * and mtime. Such an entry is not trusted: the next checkpoint reads it again.
 */
export const RACY_MS = 2_000;

/**
 * The cache on disk, in columns (see TreeRows) rather than JSON: 20,000 rows parse in a few ms
 * instead of 40 and make no object per row. With the rows, each directory's listing (DirListing:
 * the walk then lists only the directories that changed).
 *
 *   "RWSC" | u32 version | u32 header length | header JSON | zero padding to 8 bytes | body
 *   body: f64 row sizes, mtimes, ctimes (NaN: unknown), inodes [n each]
 *         | f64 dir mtimes, ctimes, inodes, .gitignore mtimes, ctimes, sizes, inodes (NaN: none) [dn each]
 *         | u32 dir name counts, dir key counts [dn each] | u16 row modes [n] | u8 row kinds [n]
 *         | row sha256s, 32 bytes each (zeros for links and directories) [n]
 *         | row paths, link targets (link rows only), dir paths, dir keys: each NUL-separated UTF-8
 *
 * Hashes as bytes: a checkpoint that read 100 files writes the other hashes as they were read,
 * with no 20,000 strings made and joined.
 *
 * The header names the checkpoint, the counts, the text lengths, the byte order and the body's
 * sha256. The file is scratch state written without fsync: a torn, short, foreign-endian or
 * otherwise damaged one fails these checks and the newest manifest is read instead (a full,
 * correct read, only slower).
 */
const MAGIC = 'RWSC';
const VERSION = 4;
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
  dn: number;
  /** Byte lengths of the four texts: row paths, link targets, dir paths, dir keys. */
  texts: [number, number, number, number];
  le: boolean;
  sha256: string;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const pad8 = (n: number) => (8 - (n % 8)) % 8;
const bodyBytes = (n: number, dn: number) => n * 32 + dn * 56 + dn * 8 + n * 3 + n * 32;

/** A typed array over part of `buf`, copied when the part is not aligned for it. */
function view<T extends Float64Array | Uint32Array | Uint16Array>(Ctor: { new (b: ArrayBuffer, o: number, n: number): T; BYTES_PER_ELEMENT: number }, buf: Buffer, at: number, n: number): T {
  const offset = buf.byteOffset + at;
  if (offset % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(buf.buffer as ArrayBuffer, offset, n);
  const copy = new Uint8Array(n * Ctor.BYTES_PER_ELEMENT);
  copy.set(buf.subarray(at, at + copy.length));
  return new Ctor(copy.buffer, 0, n);
}

const splitNul = (t: string, n: number) => (n ? t.split('\0') : []);

/** The directory listings of a cache file, each made into an object only when the walk asks for it. */
class StoredListings implements Listings {
  private index: Map<string, number> | null = null;
  private keys: string[] | null = null;
  private starts: number[] | null = null;
  constructor(
    readonly written: number,
    private readonly paths: string[],
    private readonly f: Float64Array,
    private readonly names: Uint32Array,
    private readonly counts: Uint32Array,
    private readonly keyText: () => string,
  ) {}

  get(rel: string): DirListing | undefined {
    if (!this.index) {
      this.index = new Map();
      for (let i = 0; i < this.paths.length; i++) this.index.set(this.paths[i]!, i);
      let total = 0;
      this.starts = Array.from(this.counts, (c) => ((total += c), total - c));
      this.keys = splitNul(this.keyText(), total);
      if (this.keys.length !== total) this.keys = null;
    }
    const i = this.index.get(rel);
    // Keys that do not add up (a writer's bug: the checksum matched) list nothing as kept.
    if (i === undefined || !this.keys) return undefined;
    const dn = this.paths.length;
    const f = this.f;
    const g = Number.isNaN(f[3 * dn + i]!) ? null : [f[3 * dn + i]!, f[4 * dn + i]!, f[5 * dn + i]!, f[6 * dn + i]!];
    const at = this.starts![i]!;
    return { mtime: f[i]!, ctime: f[dn + i]!, ino: f[2 * dn + i]!, names: this.names[i]!, gi: g, keys: this.keys.slice(at, at + this.counts[i]!) };
  }
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
  const { n, dn, texts } = h;
  const count = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  if (!count(n) || !count(dn) || !Array.isArray(texts) || texts.length !== 4 || !texts.every(count) || typeof h.written !== 'number') return null;
  if (h.le !== LITTLE_ENDIAN || (h.checkpoint !== null && typeof h.checkpoint !== 'string') || typeof h.sha256 !== 'string') return null;
  const body = 12 + hlen + pad8(12 + hlen);
  if (buf.length !== body + bodyBytes(n, dn) + texts[0] + texts[1] + texts[2] + texts[3]) return null;
  if (createHash('sha256').update(buf.subarray(body)).digest('hex') !== h.sha256) return null;
  const rowF = view(Float64Array, buf, body, 4 * n);
  let at = body + n * 32;
  const dirF = view(Float64Array, buf, at, 7 * dn);
  at += dn * 56;
  const names = view(Uint32Array, buf, at, dn);
  at += dn * 4;
  const counts = view(Uint32Array, buf, at, dn);
  at += dn * 4;
  const modes = view(Uint16Array, buf, at, n);
  at += n * 2;
  const kinds = buf.subarray(at, at + n);
  at += n;
  const bin = buf.subarray(at, at + 32 * n);
  at += 32 * n;
  for (let i = 0; i < n; i++) if (kinds[i]! > 2) return null;
  const text = (k: number) => {
    const from = at + texts.slice(0, k).reduce((x, y) => x + y, 0);
    return () => buf.toString('utf8', from, from + texts[k]!);
  };
  const paths = splitNul(text(0)(), n);
  const dirPaths = splitNul(text(2)(), dn);
  if (paths.length !== n || dirPaths.length !== dn) return null;
  const linkText = text(1);
  const links = () => (texts[1] ? linkText().split('\0') : []);
  const sub = (k: number) => rowF.subarray(k * n, (k + 1) * n);
  return {
    checkpoint: h.checkpoint,
    depth: typeof h.depth === 'number' ? h.depth : 0,
    written: h.written,
    rows: new TreeRows(paths, kinds, modes, sub(0), sub(1), sub(2), sub(3), null, { bin, links }),
    dirs: new StoredListings(h.written, dirPaths, dirF, names, counts, text(3)),
  };
}

/** Encodes rows (in path order) and listings as a cache file. */
export function encodeStatCache(c: Omit<StatCache, 'file'>, listings: ReadonlyMap<string, DirListing> | null): Buffer[] {
  const r = c.rows;
  const n = r.length;
  // Any order: they are looked up by path.
  const dirs = [...(listings ?? [])];
  const dn = dirs.length;
  const nums = Buffer.alloc(bodyBytes(n, dn));
  const f = new Float64Array(nums.buffer, nums.byteOffset, 4 * n + 7 * dn);
  for (let i = 0; i < n; i++) {
    f[i] = r.sizes[i]!;
    f[n + i] = r.mtimes[i]!;
    f[2 * n + i] = r.ctimes[i]!;
    f[3 * n + i] = r.inos[i]!;
  }
  const d0 = 4 * n;
  const names = new Uint32Array(nums.buffer, nums.byteOffset + n * 32 + dn * 56, dn);
  const counts = new Uint32Array(nums.buffer, nums.byteOffset + n * 32 + dn * 60, dn);
  const keys: string[] = [];
  dirs.forEach(([, l], i) => {
    f[d0 + i] = l.mtime;
    f[d0 + dn + i] = l.ctime;
    f[d0 + 2 * dn + i] = l.ino;
    for (let k = 0; k < 4; k++) f[d0 + (3 + k) * dn + i] = l.gi && !l.gi.some(Number.isNaN) ? l.gi[k]! : Number.NaN;
    names[i] = l.names;
    counts[i] = l.keys.length;
    for (const k of l.keys) keys.push(k);
  });
  const modes = new Uint16Array(nums.buffer, nums.byteOffset + n * 32 + dn * 64, n);
  const kindsAt = n * 32 + dn * 64 + n * 2;
  const binAt = kindsAt + n;
  const links: string[] = [];
  let anyLink = false;
  for (let i = 0; i < n; i++) {
    modes[i] = r.modes[i]!;
    const k = r.kinds[i]!;
    nums[kindsAt + i] = k;
    if (k === 0) r.fileRefInto(i, nums, binAt + 32 * i);
    else if (k === 1) {
      links.push(r.ref(i));
      anyLink = true;
    }
  }
  const textParts = [r.paths.join('\0'), anyLink ? links.join('\0') : '', dirs.map(([p]) => p).join('\0'), keys.join('\0')].map((t) => Buffer.from(t, 'utf8'));
  const hash = createHash('sha256').update(nums);
  for (const t of textParts) hash.update(t);
  const header: Header = { checkpoint: c.checkpoint, depth: c.depth, written: c.written, n, dn, texts: textParts.map((t) => t.length) as Header['texts'], le: LITTLE_ENDIAN, sha256: hash.digest('hex') };
  const h = Buffer.from(JSON.stringify(header), 'utf8');
  const lead = Buffer.alloc(12 + h.length + pad8(12 + h.length));
  lead.write(MAGIC, 0, 'latin1');
  lead.writeUInt32LE(VERSION, 4);
  lead.writeUInt32LE(h.length, 8);
  h.copy(lead, 12);
  return [lead, nums, ...textParts];
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
export async function writeStatCache(root: string, c: Omit<StatCache, 'file'>, listings: ReadonlyMap<string, DirListing> | null): Promise<void> {
  await writeCacheFileAtomic(file(root), encodeStatCache(c, listings));
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
