import { crc32 } from 'node:zlib';
import type { SessionSummary } from '../../shared/session-schema.js';

/**
 * One segment file of the search and metadata index: what one refresh learned. Layout:
 *   `REWIND-INDEX <version>\n` `<header JSON>\n` then the body: three Uint32 tables (where each
 *   prompt's folded text and original text start, which file record it belongs to), the folded
 *   texts (UTF-8, NUL between prompts, searched as bytes without decoding), the original texts, and
 *   a per-file JSON blob (prompt ids, offsets, times; the live-path state) and each file's summary
 *   (JSON), both parsed only when needed: the header stays small (paths, fingerprints, counts, cwd).
 * The header names the body's length and its CRC-32 (zlib's: several times faster than a sha1 on
 * the tens of MiB a warm search reads): a truncated, corrupt or foreign file is refused.
 */
export const INDEX_VERSION = 2;
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
  files: (Omit<FileRecord, 'prompts' | 'meta' | 'cwd' | 'summaryAt'> & { summary: SessionSummary | null; meta: FileMeta; packed: PackedPrompts })[];
  /** A base segment holds the whole index: every older segment is obsolete. */
  base: boolean;
}

export interface Segment {
  name: string;
  base: boolean;
  files: FileRecord[];
  promptCount: number;
  foldStarts: Uint32Array;
  textStarts: Uint32Array;
  promptFile: Uint32Array;
  folded: Buffer;
  texts: Buffer;
  metaBlob: Buffer;
  summaryBlob: Buffer;
  bytes: number;
}

export function encodeSegment(input: SegmentInput): Buffer {
  const files: FileRecord[] = [];
  const n = input.files.reduce((a, f) => a + f.packed.foldLens.length, 0);
  const foldStarts = new Uint32Array(n + 1);
  const textStarts = new Uint32Array(n + 1);
  const promptFile = new Uint32Array(n);
  const foldedParts: Uint8Array[] = [];
  const textParts: Uint8Array[] = [];
  const metaParts: Buffer[] = [];
  const summaryParts: Buffer[] = [];
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
    const mb = Buffer.from(JSON.stringify(f.meta), 'utf8');
    metaParts.push(mb);
    const sb = f.summary ? Buffer.from(JSON.stringify(f.summary), 'utf8') : Buffer.alloc(0);
    summaryParts.push(sb);
    const { meta: _m, packed: _p, summary, ...rest } = f;
    files.push({ ...rest, cwd: summary?.cwd ?? null, summaryAt: [sAt, sb.length], prompts: [first, foldLens.length], meta: [mAt, mb.length] });
    mAt += mb.length;
    sAt += sb.length;
  }
  const body = Buffer.concat([new Uint8Array(foldStarts.buffer), new Uint8Array(textStarts.buffer), new Uint8Array(promptFile.buffer), ...foldedParts, ...textParts, ...metaParts, ...summaryParts]);
  const header = { version: INDEX_VERSION, base: input.base, promptCount: n, foldedBytes: fAt, textBytes: tAt, metaBytes: mAt, summaryBytes: sAt, bodyBytes: body.length, crc32: crc32(body), files };
  return Buffer.concat([Buffer.from(MAGIC), Buffer.from(`${JSON.stringify(header)}\n`), body]);
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
  return { folded: s.folded.subarray(s.foldStarts[first]!, s.foldStarts[first + count]!), texts: s.texts.subarray(s.textStarts[first]!, s.textStarts[first + count]!), foldLens, textLens };
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

/** Reads a segment, refusing anything whose magic, version, length or checksum is off. */
export function decodeSegment(name: string, buf: Buffer): Segment {
  if (buf.length < MAGIC.length || buf.toString('latin1', 0, MAGIC.length) !== MAGIC) {
    const other = buf.toString('latin1', 0, 13) === 'REWIND-INDEX ';
    throw new CorruptIndexError(other ? `${name} has another index version` : `${name} is not a Rewind index file`);
  }
  const nl = buf.indexOf(10, MAGIC.length);
  if (nl === -1) throw new CorruptIndexError(`${name} is truncated`);
  let h: { version: number; base: boolean; promptCount: number; foldedBytes: number; textBytes: number; metaBytes: number; summaryBytes: number; bodyBytes: number; crc32: number; files: FileRecord[] };
  try {
    h = JSON.parse(buf.toString('utf8', MAGIC.length, nl)) as typeof h;
  } catch {
    throw new CorruptIndexError(`${name} has a damaged header`);
  }
  const bodyAt = nl + 1;
  if (h.version !== INDEX_VERSION || buf.length - bodyAt !== h.bodyBytes) throw new CorruptIndexError(`${name} is truncated or was cut`);
  const body = buf.subarray(bodyAt);
  if (crc32(body) !== h.crc32) throw new CorruptIndexError(`${name} fails its checksum`);
  const n = h.promptCount;
  // Copies, so the tables are aligned whatever the header's length.
  const u32 = (at: number, count: number) => new Uint32Array(body.buffer.slice(body.byteOffset + at, body.byteOffset + at + count * 4));
  let at = 0;
  const foldStarts = u32(at, n + 1);
  at += (n + 1) * 4;
  const textStarts = u32(at, n + 1);
  at += (n + 1) * 4;
  const promptFile = u32(at, n);
  at += n * 4;
  const folded = body.subarray(at, at + h.foldedBytes);
  at += h.foldedBytes;
  const texts = body.subarray(at, at + h.textBytes);
  at += h.textBytes;
  const metaBlob = body.subarray(at, at + h.metaBytes);
  at += h.metaBytes;
  const summaryBlob = body.subarray(at, at + h.summaryBytes);
  return { name, base: h.base, files: h.files, promptCount: n, foldStarts, textStarts, promptFile, folded, texts, metaBlob, summaryBlob, bytes: buf.length };
}

export function segmentText(s: Segment, p: number): string {
  return s.texts.toString('utf8', s.textStarts[p]!, s.textStarts[p + 1]!);
}

export function segmentFolded(s: Segment, p: number): string {
  return s.folded.toString('utf8', s.foldStarts[p]!, s.foldStarts[p + 1]! - 1);
}

export function fileSummary(s: Segment, fileIdx: number): SessionSummary | null {
  const [a, len] = s.files[fileIdx]!.summaryAt;
  return len === 0 ? null : (JSON.parse(s.summaryBlob.toString('utf8', a, a + len)) as SessionSummary);
}

export function fileMeta(s: Segment, fileIdx: number): FileMeta {
  const [a, len] = s.files[fileIdx]!.meta;
  return JSON.parse(s.metaBlob.toString('utf8', a, a + len)) as FileMeta;
}
