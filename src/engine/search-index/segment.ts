import { closeSync, constants, fstatSync, openSync, read, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { SessionSummary } from '../../shared/session-schema.js';

/**
 * One segment file of the search and metadata index: what one refresh learned. Layout:
 *   `REWIND-INDEX <version>\n`, `<header bytes> <header CRC-32> <eager bytes> <lazy bytes>\n`,
 *   `<header JSON>\n` then the body: the eager part (read at open with the header, in one read)
 *   then the lazy part (read in 64 KiB blocks when a search needs them, each block checked).
 *   Body: three Uint32 tables (where each
 *   prompt's folded text and original text start, which file record it belongs to), the folded
 *   texts (UTF-8, NUL between prompts, searched as bytes without decoding), the original texts, and
 *   a per-file JSON blob (prompt ids, offsets, times; the live-path state) and each file's summary
 *   (JSON), both parsed only when needed: the header stays small (paths, fingerprints, counts, cwd).
 * The header names the body's length and its CRC-32 (zlib's: several times faster than a sha1 on
 * the tens of MiB a warm search reads): a truncated, corrupt or foreign file is refused.
 */
export const INDEX_VERSION = 3;
const MAGIC = `REWIND-INDEX ${INDEX_VERSION}\n`;

export interface Fingerprint {
  size: number;
  mtimeMs: number;
  ino: number;
  /** sha1 of the first 4 KiB: a rewrite that keeps size and time still shows. */
  head: string;
  /** Bytes `head` covers (less than 4 KiB while the file is smaller). */
  headLen: number;
}

export interface Counts {
  /** Every prompt in the file, all branches. */
  total: number;
  /** On the path the agent would resume. */
  live: number;
}

export interface FileRecord {
  /** full: everything about the file so far; append: more prompts after the previous records; delete: gone. */
  mode: 'full' | 'append' | 'delete';
  path: string;
  agent: string;
  sessionId: string;
  fp: Fingerprint;
  /** An append continues from here (the previous record's indexedTo); one that does not fit is stale. */
  from: number;
  /** Bytes read as complete lines: the next read starts here. */
  indexedTo: number;
  lineCount: number;
  counts: Counts;
  /** The session's folder (from its summary), for a search by project without parsing summaries. */
  cwd: string | null;
  /** Its summary's range in the summary blob ([0, 0]: none). */
  summaryAt: [number, number];
  /** This record's prompts in the segment: [first, count]. */
  prompts: [number, number];
  /** Its range in the meta blob. */
  meta: [number, number];
}

export interface FileMeta {
  /** Per prompt of this record: [uuid, byte offset, timestamp]. */
  prompts: [string, number, string | null][];
  /** Live-path state after this record: depth (prompts from the root) of the last messages, and the leaf. */
  recent: Record<string, number>;
  leaf: string | null;
}

/** One record's prompts as the segment stores them, made where the file was read (a worker thread). */
export interface PackedPrompts {
  /** Folded texts, each followed by a NUL. */
  folded: Uint8Array;
  /** Original texts, UTF-8, back to back. */
  texts: Uint8Array;
  /** Bytes of each prompt in `folded` (its NUL included) and in `texts`. */
  foldLens: number[];
  textLens: number[];
}

export const NO_PROMPTS: PackedPrompts = { folded: new Uint8Array(0), texts: new Uint8Array(0), foldLens: [], textLens: [] };

/** A record's meta and summary as the segment stores them (JSON), made where the file was read. */
export function encodeJson(meta: FileMeta, summary: SessionSummary | null): { meta: Uint8Array; summary: Uint8Array } {
  return { meta: Buffer.from(JSON.stringify(meta), 'utf8'), summary: summary ? Buffer.from(JSON.stringify(summary), 'utf8') : Buffer.alloc(0) };
}

/** Prompts packed for a segment, in buffers of their own (so a worker can transfer them). */
export function packPrompts(texts: string[], folded: string[]): PackedPrompts {
  const foldLens = folded.map((f) => Buffer.byteLength(f, 'utf8') + 1);
  const textLens = texts.map((t) => Buffer.byteLength(t, 'utf8'));
  const fb = Buffer.allocUnsafeSlow(foldLens.reduce((a, b) => a + b, 0));
  const tb = Buffer.allocUnsafeSlow(textLens.reduce((a, b) => a + b, 0));
  let at = 0;
  for (const f of folded) {
    at += fb.write(f, at, 'utf8');
    fb[at++] = 0;
  }
  at = 0;
  for (const t of texts) at += tb.write(t, at, 'utf8');
  return { folded: fb, texts: tb, foldLens, textLens };
}

export interface SegmentInput {
  files: (Omit<FileRecord, 'prompts' | 'meta' | 'cwd' | 'summaryAt'> & {
    summary: SessionSummary | null;
    meta: FileMeta;
    packed: PackedPrompts;
    /** `meta` and `summary` as JSON already (made on the worker that read the file): used as they are. */
    json?: { meta: Uint8Array; summary: Uint8Array };
  })[];
  /** A base segment holds the whole index: every older segment is obsolete. */
  base: boolean;
}

/** Where the lazy part of a segment is: the file (read by blocks on demand) or, just written, memory. */
class LazyPart {
  private blocks = new Map<number, Buffer>();
  constructor(
    private readonly name: string,
    private readonly source: { fd: number; at: number } | Buffer,
    private readonly length: number,
    private readonly crcs: number[],
    private readonly blockBytes: number,
  ) {}

  /** Bytes [a, b) of the lazy part; every block they touch is checked against its CRC first. */
  read(a: number, b: number): Buffer {
    if (Buffer.isBuffer(this.source)) return this.source.subarray(a, b);
    if (b <= a) return Buffer.alloc(0);
    const first = Math.floor(a / this.blockBytes);
    const last = Math.floor((b - 1) / this.blockBytes);
    if (first === last) return this.block(first).subarray(a - first * this.blockBytes, b - first * this.blockBytes);
    const parts: Buffer[] = [];
    for (let k = first; k <= last; k++) parts.push(this.block(k).subarray(k === first ? a - k * this.blockBytes : 0, k === last ? b - k * this.blockBytes : this.blockBytes));
    return Buffer.concat(parts);
  }

  private block(k: number): Buffer {
    let buf = this.blocks.get(k);
    if (buf) return buf;
    const src = this.source as { fd: number; at: number };
    const len = Math.max(0, Math.min(this.blockBytes, this.length - k * this.blockBytes));
    buf = Buffer.allocUnsafe(len);
    const got = len > 0 ? readSync(src.fd, buf, 0, len, src.at + k * this.blockBytes) : 0;
    if (got !== len || crc32(buf) !== this.crcs[k]) throw new CorruptIndexError(`${this.name} fails its checksum`);
    this.blocks.set(k, buf);
    return buf;
  }

  close(): void {
    if (!Buffer.isBuffer(this.source)) closeSync(this.source.fd);
    this.blocks.clear();
  }
}

export interface Segment {
  name: string;
  base: boolean;
  files: FileRecord[];
  promptCount: number;
  foldStarts: Uint32Array;
  textStarts: Uint32Array;
  promptFile: Uint32Array;
  /** Every folded prompt (searched at once: read and checked at open). */
  folded: Buffer;
  /** Original texts, then meta, then summaries: read when used. */
  lazy: LazyPart;
  textBytes: number;
  metaBytes: number;
  bytes: number;
}

/**
 * Blocks of the lazy part, each with its CRC: a snippet reads and checks one block, not the whole
 * file. A search reads a block or two per session it lists (a title, a prompt id, a snippet): 16 KiB
 * blocks read 120 of them in 2 ms where 64 KiB blocks took 7 (fresh memory to fault in, and to check).
 * Segments written before say nothing: 64 KiB.
 */
const BLOCK = 16 * 1024;
const OLD_BLOCK = 64 * 1024;
const blockOf = (h: Header) => h.blockBytes ?? OLD_BLOCK;

interface Header {
  version: number;
  base: boolean;
  promptCount: number;
  foldedBytes: number;
  textBytes: number;
  metaBytes: number;
  summaryBytes: number;
  eagerCrc: number;
  lazyCrcs: number[];
  /** Bytes per lazy block (absent: 64 KiB, what segments were written with before). */
  blockBytes?: number;
  files: FileRecord[];
}

/** A segment as it is written: its bytes in parts (never copied into one), and the segment they make. */
export interface EncodedSegment {
  parts: Buffer[];
  /** The segment in memory (its checksums were just computed from these very bytes: not checked again). */
  segment(name: string): Segment;
}

export function encodeSegment(input: SegmentInput): Buffer {
  return Buffer.concat(encodeSegmentParts(input).parts);
}

export function encodeSegmentParts(input: SegmentInput): EncodedSegment {
  const files: FileRecord[] = [];
  const n = input.files.reduce((a, f) => a + f.packed.foldLens.length, 0);
  const foldStarts = new Uint32Array(n + 1);
  const textStarts = new Uint32Array(n + 1);
  const promptFile = new Uint32Array(n);
  const foldedParts: Uint8Array[] = [];
  const textParts: Uint8Array[] = [];
  const metaParts: Uint8Array[] = [];
  const summaryParts: Uint8Array[] = [];
  let sAt = 0;
  let fAt = 0;
  let tAt = 0;
  let mAt = 0;
  let p = 0;
  for (const f of input.files) {
    const first = p;
    const { foldLens, textLens } = f.packed;
    for (let i = 0; i < foldLens.length; i++) {
      fAt += foldLens[i]!;
      tAt += textLens[i]!;
      promptFile[p] = files.length;
      p++;
      foldStarts[p] = fAt;
      textStarts[p] = tAt;
    }
    foldedParts.push(f.packed.folded);
    textParts.push(f.packed.texts);
    const mb = f.json?.meta ?? Buffer.from(JSON.stringify(f.meta), 'utf8');
    metaParts.push(mb);
    const sb = f.json?.summary ?? (f.summary ? Buffer.from(JSON.stringify(f.summary), 'utf8') : Buffer.alloc(0));
    summaryParts.push(sb);
    const { meta: _m, packed: _p, json: _j, summary, ...rest } = f;
    files.push({ ...rest, cwd: summary?.cwd ?? null, summaryAt: [sAt, sb.length], prompts: [first, foldLens.length], meta: [mAt, mb.length] });
    mAt += mb.length;
    sAt += sb.length;
  }
  const eager = Buffer.concat([new Uint8Array(foldStarts.buffer), new Uint8Array(textStarts.buffer), new Uint8Array(promptFile.buffer), ...foldedParts]);
  const lazy = Buffer.concat([...textParts, ...metaParts, ...summaryParts]);
  const lazyCrcs: number[] = [];
  for (let k = 0; k * BLOCK < lazy.length; k++) lazyCrcs.push(crc32(lazy.subarray(k * BLOCK, (k + 1) * BLOCK)));
  const header: Header = { version: INDEX_VERSION, base: input.base, promptCount: n, foldedBytes: fAt, textBytes: tAt, metaBytes: mAt, summaryBytes: sAt, eagerCrc: crc32(eager), lazyCrcs, blockBytes: BLOCK, files };
  const hb = Buffer.from(JSON.stringify(header), 'utf8');
  const hCrc = crc32(hb);
  const prefix = Buffer.from(`${MAGIC}${hb.length} ${hCrc} ${eager.length} ${lazy.length}\n`);
  return {
    parts: [prefix, hb, eager, lazy],
    segment: (name) => fromParts(name, hb, hCrc, eager, (h) => new LazyPart(name, lazy, lazy.length, h.lazyCrcs, BLOCK), prefix.length + hb.length + eager.length + lazy.length, false),
  };
}

/** Record `fileIdx`'s prompts as they are in the segment (for a merge: no decoding). */
export function segmentPacked(s: Segment, fileIdx: number): PackedPrompts {
  const [first, count] = s.files[fileIdx]!.prompts;
  const foldLens: number[] = [];
  const textLens: number[] = [];
  for (let p = first; p < first + count; p++) {
    foldLens.push(s.foldStarts[p + 1]! - s.foldStarts[p]!);
    textLens.push(s.textStarts[p + 1]! - s.textStarts[p]!);
  }
  return { folded: s.folded.subarray(s.foldStarts[first]!, s.foldStarts[first + count]!), texts: s.lazy.read(s.textStarts[first]!, s.textStarts[first + count]!), foldLens, textLens };
}

/** Several records' prompts as one (a merge of a file's parts). */
export function concatPacked(parts: PackedPrompts[]): PackedPrompts {
  if (parts.length === 1) return parts[0]!;
  return {
    folded: Buffer.concat(parts.map((p) => p.folded)),
    texts: Buffer.concat(parts.map((p) => p.texts)),
    foldLens: parts.flatMap((p) => p.foldLens),
    textLens: parts.flatMap((p) => p.textLens),
  };
}

export class CorruptIndexError extends Error {}

function refuseForeign(name: string, head: Buffer): void {
  if (head.length < MAGIC.length || head.toString('latin1', 0, MAGIC.length) !== MAGIC) {
    const other = head.toString('latin1', 0, 13) === 'REWIND-INDEX ';
    throw new CorruptIndexError(other ? `${name} has another index version` : `${name} is not a Rewind index file`);
  }
}

/** The lengths line after the magic: [header bytes, header CRC, eager bytes, lazy bytes, where the header starts]. */
function lengths(name: string, head: Buffer): [number, number, number, number, number] {
  const nl = head.indexOf(10, MAGIC.length);
  const f = nl === -1 ? [] : head.toString('latin1', MAGIC.length, nl).split(' ').map(Number);
  if (f.length !== 4 || f.some((x) => !Number.isSafeInteger(x) || x < 0)) throw new CorruptIndexError(`${name} is truncated or was cut`);
  return [f[0]!, f[1]!, f[2]!, f[3]!, nl + 1];
}

function fromParts(name: string, header: Buffer, headerCrc: number, eager: Buffer, lazy: (h: Header) => LazyPart, bytes: number, check = true): Segment {
  if (check && crc32(header) !== headerCrc) throw new CorruptIndexError(`${name} fails its checksum`);
  let h: Header;
  try {
    h = JSON.parse(header.toString('utf8')) as Header;
  } catch {
    throw new CorruptIndexError(`${name} has a damaged header`);
  }
  if (h?.version !== INDEX_VERSION) throw new CorruptIndexError(`${name} has another index version`);
  checkHeader(name, h);
  if (check && crc32(eager) !== h.eagerCrc) throw new CorruptIndexError(`${name} fails its checksum`);
  const n = h.promptCount;
  // Views where the bytes are aligned (a file read puts them so), else copies.
  const u32 = (at: number, count: number) => {
    const from = eager.byteOffset + at;
    return from % 4 === 0 ? new Uint32Array(eager.buffer, from, count) : new Uint32Array(eager.buffer.slice(from, from + count * 4));
  };
  let at = 0;
  const foldStarts = u32(at, n + 1);
  at += (n + 1) * 4;
  const textStarts = u32(at, n + 1);
  // The stored prompt -> record table says what the records' ranges say: it is made from them.
  at += (n + 1) * 4 + n * 4;
  if (eager.length - at !== h.foldedBytes) throw new CorruptIndexError(`${name} is truncated or was cut`);
  const promptFile = checkTables(name, h, foldStarts, textStarts);
  const folded = eager.subarray(at, at + h.foldedBytes);
  return { name, base: h.base, files: h.files, promptCount: n, foldStarts, textStarts, promptFile, folded, lazy: lazy(h), textBytes: h.textBytes, metaBytes: h.metaBytes, bytes };
}

const count = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
/** [start, length] inside `0..max`. */
const range = (x: unknown, max: number): boolean => Array.isArray(x) && x.length === 2 && count(x[0]) && count(x[1]) && x[0] + x[1] <= max;
const MODES = new Set(['full', 'append', 'delete']);

function validRecord(f: FileRecord, h: Header): boolean {
  const fp = f?.fp as Fingerprint | undefined;
  return (
    typeof f === 'object' &&
    MODES.has(f.mode) &&
    typeof f.path === 'string' &&
    typeof f.agent === 'string' &&
    typeof f.sessionId === 'string' &&
    typeof fp === 'object' &&
    fp !== null &&
    count(fp.size) &&
    Number.isFinite(fp.mtimeMs) &&
    Number.isFinite(fp.ino) &&
    typeof fp.head === 'string' &&
    count(fp.headLen) &&
    count(f.from) &&
    count(f.indexedTo) &&
    count(f.lineCount) &&
    count(f.counts?.total) &&
    count(f.counts?.live) &&
    (f.cwd === null || typeof f.cwd === 'string') &&
    range(f.summaryAt, h.summaryBytes) &&
    range(f.meta, h.metaBytes) &&
    range(f.prompts, h.promptCount)
  );
}

/**
 * Every field a reader uses has its type and stays inside the segment: a header with a valid
 * checksum but wrong types (another writer's bug, a hand edit) is refused as damage, never met later
 * as a TypeError in a search.
 */
function checkHeader(name: string, h: Header): void {
  const lazyBytes = h.textBytes + h.metaBytes + h.summaryBytes;
  const ok =
    typeof h.base === 'boolean' &&
    [h.promptCount, h.foldedBytes, h.textBytes, h.metaBytes, h.summaryBytes].every(count) &&
    Number.isSafeInteger(h.eagerCrc) &&
    Array.isArray(h.lazyCrcs) &&
    (h.blockBytes === undefined || (Number.isSafeInteger(h.blockBytes) && h.blockBytes >= 1024 && h.blockBytes <= 1024 * 1024)) &&
    h.lazyCrcs.length === Math.ceil(lazyBytes / blockOf(h)) &&
    h.lazyCrcs.every((c) => Number.isSafeInteger(c)) &&
    Array.isArray(h.files) &&
    h.files.every((f) => validRecord(f, h));
  if (!ok) throw new CorruptIndexError(`${name} has a damaged header`);
}

/**
 * The prompt tables agree with the header: they run from the first byte of the texts to their ends,
 * and the records' prompt ranges follow one another from the first prompt to the last. Returns each
 * prompt's record. That the starts rise in between is not checked here, prompt by prompt (8 ms on
 * a big history, for every search): the bytes are the writer's (their checksum held), and the
 * readers stay in bounds and move forward whatever the starts say.
 */
function checkTables(name: string, h: Header, foldStarts: Uint32Array, textStarts: Uint32Array): Uint32Array {
  const n = h.promptCount;
  let ok = foldStarts[0] === 0 && textStarts[0] === 0 && foldStarts[n] === h.foldedBytes && textStarts[n] === h.textBytes;
  const promptFile = new Uint32Array(n);
  let next = 0;
  for (let i = 0; ok && i < h.files.length; i++) {
    const [first, k] = h.files[i]!.prompts;
    ok = first === next;
    promptFile.fill(i, first, first + k);
    next = first + k;
  }
  if (!ok || next !== n) throw new CorruptIndexError(`${name} has a damaged header`);
  return promptFile;
}

/** A segment in memory (as just written, or a whole file read): everything is checked now. */
export function decodeSegment(name: string, buf: Buffer): Segment {
  refuseForeign(name, buf);
  const [hLen, hCrc, eLen, lLen, at] = lengths(name, buf);
  if (buf.length !== at + hLen + eLen + lLen) throw new CorruptIndexError(`${name} is truncated or was cut`);
  const lazy = buf.subarray(at + hLen + eLen);
  return fromParts(
    name,
    buf.subarray(at, at + hLen),
    hCrc,
    buf.subarray(at + hLen, at + hLen + eLen),
    (h) => {
      const block = blockOf(h);
      for (let k = 0; k * block < lazy.length; k++) if (crc32(lazy.subarray(k * block, (k + 1) * block)) !== h.lazyCrcs[k]) throw new CorruptIndexError(`${name} fails its checksum`);
      return new LazyPart(name, lazy, lLen, h.lazyCrcs, block);
    },
    buf.length,
  );
}

/** An opened segment file: its descriptor and size, where its header starts, and its parts' lengths. */
interface SegmentFile {
  fd: number;
  size: number;
  at: number;
  hLen: number;
  hCrc: number;
  eLen: number;
  lLen: number;
}

/** Opens a segment file and reads its lengths line, checked against its size (closed again if off). */
function openHead(name: string, path: string): SegmentFile {
  // Never blocks on a FIFO put in its place (no effect on a regular file); what is not one is damage.
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new CorruptIndexError(`${name} is not a regular file`);
    const size = st.size;
    const head = Buffer.allocUnsafe(Math.min(size, 256));
    const got = readSync(fd, head, 0, head.length, 0);
    refuseForeign(name, head.subarray(0, got));
    const [hLen, hCrc, eLen, lLen, at] = lengths(name, head.subarray(0, got));
    if (size !== at + hLen + eLen + lLen) throw new CorruptIndexError(`${name} is truncated or was cut`);
    return { fd, size, at, hLen, hCrc, eLen, lLen };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/**
 * Room for a segment's header and eager part, placed so the eager part starts 4-byte aligned in its
 * memory: its Uint32 tables are then used where they lie instead of copied.
 */
function alignedBuffer(f: SegmentFile): Buffer {
  const pad = (4 - (f.hLen % 4)) % 4;
  return Buffer.allocUnsafeSlow(pad + f.hLen + f.eLen).subarray(pad);
}

/** The segment from its header and folded prompts (`got` bytes read into `buf`); the file stays open for the rest. */
function fromHead(name: string, f: SegmentFile, buf: Buffer, got: number): Segment {
  if (got !== buf.length) throw new CorruptIndexError(`${name} is truncated or was cut`);
  return fromParts(name, buf.subarray(0, f.hLen), f.hCrc, buf.subarray(f.hLen), (h) => new LazyPart(name, { fd: f.fd, at: f.at + f.hLen + f.eLen }, f.lLen, h.lazyCrcs, blockOf(h)), f.size);
}

/**
 * `openSegment` with the one big read (header and folded prompts) done off this thread: the open,
 * the size and the first bytes are read now, and the rest while the caller does other work (the
 * CLI's warm search lists the session files meanwhile). Checked as `openSegment` checks it.
 */
export function openSegmentAsync(name: string, path: string): Promise<Segment> {
  let f: SegmentFile;
  try {
    f = openHead(name, path);
  } catch (e) {
    return Promise.reject(e);
  }
  const buf = alignedBuffer(f);
  // In pieces read at once: one base segment of a big history is ~30 MB to read, and one read is one
  // thread of the pool (two segments of half the size were read faster than one).
  const pieces = Math.max(1, Math.min(4, Math.floor(buf.length / PIECE)));
  const size = Math.ceil(buf.length / pieces);
  const reads: Promise<number>[] = [];
  for (let at = 0; at < buf.length; at += size) {
    const len = Math.min(size, buf.length - at);
    reads.push(new Promise((res, rej) => read(f.fd, buf, at, len, f.at + at, (err, got) => (err ? rej(err) : res(got === len ? got : -1)))));
  }
  return Promise.all(reads).then(
    (got) => {
      try {
        return fromHead(name, f, buf, got.includes(-1) ? -1 : buf.length);
      } catch (e) {
        closeSync(f.fd);
        throw e;
      }
    },
    (e: unknown) => {
      closeSync(f.fd);
      throw e;
    },
  );
}

/** Below this, a segment is read in one piece. */
const PIECE = 4 * 1024 * 1024;

/**
 * A segment file, opened for a search: its header and folded prompts in one read (checked now);
 * texts, prompt ids and summaries are read by block when a result needs them (checked then: a
 * damaged block throws CorruptIndexError). Keeps the file open until `closeSegment`.
 */
export function openSegment(name: string, path: string): Segment {
  const f = openHead(name, path);
  try {
    const buf = alignedBuffer(f);
    return fromHead(name, f, buf, readSync(f.fd, buf, 0, buf.length, f.at));
  } catch (e) {
    closeSync(f.fd);
    throw e;
  }
}

export function closeSegment(s: Segment): void {
  s.lazy.close();
}

export function segmentText(s: Segment, p: number): string {
  return s.lazy.read(s.textStarts[p]!, s.textStarts[p + 1]!).toString('utf8');
}

export function segmentFolded(s: Segment, p: number): string {
  return s.folded.toString('utf8', s.foldStarts[p]!, s.foldStarts[p + 1]! - 1);
}

export function fileSummary(s: Segment, fileIdx: number): SessionSummary | null {
  const [a, len] = s.files[fileIdx]!.summaryAt;
  const at = s.textBytes + s.metaBytes + a;
  if (len === 0) return null;
  const sum = parseBlob(s, at, len) as SessionSummary;
  if (typeof sum !== 'object' || sum === null || typeof sum.id !== 'string' || typeof sum.title !== 'string' || typeof sum.transcriptPath !== 'string') throw new CorruptIndexError(`${s.name} has a damaged summary`);
  return sum;
}

/** A JSON blob of the lazy part (checked by block); one that does not parse is damage. */
function parseBlob(s: Segment, at: number, len: number): unknown {
  const text = s.lazy.read(at, at + len).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new CorruptIndexError(`${s.name} has a damaged record`);
  }
}

function checkMeta(s: Segment, m: FileMeta): FileMeta {
  if (typeof m !== 'object' || m === null || !Array.isArray(m.prompts) || typeof m.recent !== 'object' || m.recent === null || !(m.leaf === null || typeof m.leaf === 'string'))
    throw new CorruptIndexError(`${s.name} has a damaged record`);
  return m;
}

/** Past this many entries wanted, the whole meta is parsed at once. */
const MANY_ENTRIES = 64;

/** Bytes to read first for entries up to `upTo` of a meta of `len` bytes and `count` entries: about all of them, in one read. */
function firstWindow(len: number, count: number, upTo: number): number {
  return Math.min(len, Math.max(16 * 1024, Math.ceil((len / Math.max(1, count)) * upTo * 1.25) + 4096));
}

/** One entry of a meta's `prompts` as `JSON.stringify` writes it: `["id",offset,"timestamp"|null]`. */
const PROMPT_ENTRY = /\[("(?:[^"\\]|\\.)*"),(\d+),(null|"(?:[^"\\]|\\.)*")\],?/y;

/**
 * Entries `wanted` (indexes into the file's prompts) of record `fileIdx`'s meta, read entry by entry
 * up to the last one wanted instead of parsing the whole meta: a search hit in a session of
 * thousands of prompts needs only its own. Anything unexpected falls back to the whole parse.
 */
export function filePrompts(s: Segment, fileIdx: number, wanted: number[]): Map<number, FileMeta['prompts'][number]> {
  // A few: read entry by entry from the nearer end (the newest few of a long session, what a search
  // lists first, from the meta's end). Many: one JSON.parse of the whole meta is faster than a
  // pattern per entry (4,000 hits of a 24,000-prompt session: 67 ms entry by entry).
  if (wanted.length <= MANY_ENTRIES) {
    if (wanted.length > 0 && Math.min(...wanted) >= s.files[fileIdx]!.prompts[1] / 2) {
      const got = promptsFromEnd(s, fileIdx, wanted);
      if (got) return got;
    }
    const got = promptsFromStart(s, fileIdx, wanted);
    if (got) return got;
  }
  const out = new Map<number, FileMeta['prompts'][number]>();
  const all = fileMeta(s, fileIdx).prompts;
  for (const k of wanted) {
    const e = all[k];
    if (!Array.isArray(e) || typeof e[0] !== 'string' || !count(e[1])) throw new CorruptIndexError(`${s.name} has a damaged record`);
    out.set(k, e);
  }
  return out;
}

/**
 * Entries `wanted` read from the meta's start up to the last one wanted, in a window that grows as
 * needed (a window that ends inside an entry fails that entry's pattern, so it is read again in a
 * bigger one). Null when the meta is not as expected.
 */
function promptsFromStart(s: Segment, fileIdx: number, wanted: number[]): Map<number, FileMeta['prompts'][number]> | null {
  const [a, len] = s.files[fileIdx]!.meta;
  const base = s.textBytes + a;
  const last = Math.max(-1, ...wanted);
  const want = new Set(wanted);
  const start = '{"prompts":[';
  for (let window = firstWindow(len, s.files[fileIdx]!.prompts[1], last + 1); ; window = Math.min(len, window * 4)) {
    const text = s.lazy.read(base, base + window).toString('utf8');
    if (!text.startsWith(start)) return null;
    const out = new Map<number, FileMeta['prompts'][number]>();
    let at = start.length;
    let k = 0;
    for (; k <= last; k++) {
      PROMPT_ENTRY.lastIndex = at;
      const m = PROMPT_ENTRY.exec(text);
      if (!m) break;
      if (want.has(k)) out.set(k, [JSON.parse(m[1]!) as string, Number(m[2]), m[3] === 'null' ? null : (JSON.parse(m[3]!) as string)]);
      at = PROMPT_ENTRY.lastIndex;
    }
    if (k > last) return out;
    if (window === len) return null;
  }
}

/** Where the prompts array of a meta ends (its last entry's `]`): `"` outside a JSON string is never escaped, so this is structure. */
const PROMPTS_END = ']],"recent":';
/** Between two entries: `[` then an unescaped `"` cannot be inside a JSON string (its quotes are `\\"`). */
const ENTRY_GAP = '],["';

/**
 * `filePrompts` for entries near the end: the meta is read backwards from its end, entry by entry,
 * in a window that doubles as needed (a session of 24,000 prompts: a few KiB instead of 2 MiB).
 * Null when the meta is not as expected (the caller then parses it from the start).
 */
function promptsFromEnd(s: Segment, fileIdx: number, wanted: number[]): Map<number, FileMeta['prompts'][number]> | null {
  const rec = s.files[fileIdx]!;
  const [a, len] = rec.meta;
  const total = rec.prompts[1];
  const want = new Set(wanted);
  const lowest = Math.min(...wanted);
  const base = s.textBytes + a;
  for (let window = firstWindow(len, total, total - lowest); ; window = Math.min(len, window * 4)) {
    // A window that starts inside a character only garbles what lies before the first gap found.
    const text = s.lazy.read(base + len - window, base + len).toString('utf8');
    const whole = window === len;
    const out = new Map<number, FileMeta['prompts'][number]>();
    let close = text.indexOf(PROMPTS_END);
    if (close === -1) {
      if (whole) return null;
      continue;
    }
    let k = total - 1;
    for (; k >= lowest; k--) {
      // Only entries after the first are read this way (the first is never in the later half).
      const gap = text.lastIndexOf(ENTRY_GAP, close - 1);
      if (gap === -1) break;
      const start = gap + 2;
      if (want.has(k)) {
        PROMPT_ENTRY.lastIndex = start;
        const m = PROMPT_ENTRY.exec(text);
        if (!m || m.index !== start || PROMPT_ENTRY.lastIndex - (m[0].endsWith(',') ? 1 : 0) !== close + 1) return null;
        out.set(k, [JSON.parse(m[1]!) as string, Number(m[2]), m[3] === 'null' ? null : (JSON.parse(m[3]!) as string)]);
      }
      close = gap;
    }
    if (k < lowest) return out;
    // Not far enough back: a bigger window, or (the whole meta read) entries that do not add up.
    if (whole) return null;
  }
}

export function fileMeta(s: Segment, fileIdx: number): FileMeta {
  const [a, len] = s.files[fileIdx]!.meta;
  return checkMeta(s, parseBlob(s, s.textBytes + a, len) as FileMeta);
}
