import { createHash } from 'node:crypto';
import type { SessionSummary } from '../../shared/session-schema.js';

/**
 * One segment file of the search and metadata index: what one refresh learned. Layout:
 *   `REWIND-INDEX <version>\n` `<header JSON>\n` then the body: three Uint32 tables (where each
 *   prompt's folded text and original text start, which file record it belongs to), the folded
 *   texts (UTF-8, NUL between prompts, searched as bytes without decoding), the original texts, and
 *   a per-file JSON blob (prompt ids, offsets, times; the live-path state) parsed only when needed.
 * The header names the body's length and its sha1: a truncated, corrupt or foreign file is refused.
 */
export const INDEX_VERSION = 1;
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
  summary: SessionSummary | null;
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

export interface SegmentInput {
  files: (Omit<FileRecord, 'prompts' | 'meta'> & { meta: FileMeta; texts: string[]; folded: string[] })[];
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
  bytes: number;
}

export function encodeSegment(input: SegmentInput): Buffer {
  const files: FileRecord[] = [];
  const foldedParts: Buffer[] = [];
  const textParts: Buffer[] = [];
  const metaParts: Buffer[] = [];
  const foldStarts: number[] = [0];
  const textStarts: number[] = [0];
  const promptFile: number[] = [];
  let fAt = 0;
  let tAt = 0;
  let mAt = 0;
  let n = 0;
  for (const f of input.files) {
    const first = n;
    for (let i = 0; i < f.texts.length; i++) {
      const fb = Buffer.from(`${f.folded[i]}\0`, 'utf8');
      const tb = Buffer.from(f.texts[i]!, 'utf8');
      foldedParts.push(fb);
      textParts.push(tb);
      fAt += fb.length;
      tAt += tb.length;
      foldStarts.push(fAt);
      textStarts.push(tAt);
      promptFile.push(files.length);
      n++;
    }
    const mb = Buffer.from(JSON.stringify(f.meta), 'utf8');
    metaParts.push(mb);
    const { meta: _m, texts: _t, folded: _f, ...rest } = f;
    files.push({ ...rest, prompts: [first, f.texts.length], meta: [mAt, mb.length] });
    mAt += mb.length;
  }
  const body = Buffer.concat([
    Buffer.from(new Uint32Array(foldStarts).buffer),
    Buffer.from(new Uint32Array(textStarts).buffer),
    Buffer.from(new Uint32Array(promptFile).buffer),
    ...foldedParts,
    ...textParts,
    ...metaParts,
  ]);
  const header = { version: INDEX_VERSION, base: input.base, promptCount: n, foldedBytes: fAt, textBytes: tAt, metaBytes: mAt, bodyBytes: body.length, sha1: createHash('sha1').update(body).digest('hex'), files };
  return Buffer.concat([Buffer.from(MAGIC), Buffer.from(`${JSON.stringify(header)}\n`), body]);
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
  let h: { version: number; base: boolean; promptCount: number; foldedBytes: number; textBytes: number; metaBytes: number; bodyBytes: number; sha1: string; files: FileRecord[] };
  try {
    h = JSON.parse(buf.toString('utf8', MAGIC.length, nl)) as typeof h;
  } catch {
    throw new CorruptIndexError(`${name} has a damaged header`);
  }
  const bodyAt = nl + 1;
  if (h.version !== INDEX_VERSION || buf.length - bodyAt !== h.bodyBytes) throw new CorruptIndexError(`${name} is truncated or was cut`);
  const body = buf.subarray(bodyAt);
  if (createHash('sha1').update(body).digest('hex') !== h.sha1) throw new CorruptIndexError(`${name} fails its checksum`);
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
  return { name, base: h.base, files: h.files, promptCount: n, foldStarts, textStarts, promptFile, folded, texts, metaBlob, bytes: buf.length };
}

export function segmentText(s: Segment, p: number): string {
  return s.texts.toString('utf8', s.textStarts[p]!, s.textStarts[p + 1]!);
}

export function segmentFolded(s: Segment, p: number): string {
  return s.folded.toString('utf8', s.foldStarts[p]!, s.foldStarts[p + 1]! - 1);
}

export function fileMeta(s: Segment, fileIdx: number): FileMeta {
  const [a, len] = s.files[fileIdx]!.meta;
  return JSON.parse(s.metaBlob.toString('utf8', a, a + len)) as FileMeta;
}
