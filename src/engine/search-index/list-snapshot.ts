import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { SessionFile } from '../agents/adapter.js';
import type { SessionSummary } from '../../shared/session-schema.js';
import { INDEX_VERSION } from './segment.js';

/**
 * The session list as the index last gave it, kept beside the segments (`list.snap`): a warm
 * `sessions` then reads one small file instead of opening the index. It is used only while it is
 * exactly as fresh as the index would be: the same segment files, and every listed session file at
 * the size and time the index read it (the test the index itself uses to skip a file). Anything else
 * (a new segment, a file that grew, one more or one less) falls back to the index, which writes a
 * new one. Layout:
 *   `REWIND-LIST 1\n`, `<head bytes> <body bytes> <CRC-32 of head and body>\n`, the head (JSON), the body:
 *   each listed session's summary as compact JSON without the fields a reader fills in now (`live`
 *   from the time, `forkOf` and `forkAt` from the journals), back to back (the head has their lengths).
 */
export const LIST_SNAPSHOT = 'list.snap';

/** The index of the user's sessions: `<cache dir>/index/`. */
export function indexDir(cacheDir: string): string {
  return join(cacheDir, 'index');
}
const MAGIC = 'REWIND-LIST 1\n';

/** Written to in the last this many ms: the agent is probably running. */
export const LIVE_WINDOW_MS = 10_000;

interface Head {
  /** The index's format: another one's snapshot is never used. */
  indexVersion: number;
  /** The segment files (sorted) the list was made from. */
  segments: string[];
  /** Every file the index holds: path, size, mtimeMs. */
  files: [string, number, number][];
  /** The list, newest first: file (into `files`), id, cwd, forkOf, forkAt, bytes of its text in the body. */
  sessions: [number, string, string | null, string | null, number | null, number][];
}

/** What a snapshot is made from: each file the index holds, with its list entry (null: none). */
export interface SnapshotInput {
  indexVersion: number;
  segments: string[];
  files: { path: string; size: number; mtimeMs: number }[];
  /** The list as the index gives it (sorted), each entry's `transcriptPath` one of `files`. */
  sessions: SessionSummary[];
}

/** The fields a reader fills in (left out of the stored text). */
const LATE = new Set(['live', 'forkOf', 'forkAt']);

export function encodeListSnapshot(input: SnapshotInput): Buffer {
  const at = new Map(input.files.map((f, i) => [f.path, i]));
  const texts: Buffer[] = [];
  const sessions: Head['sessions'] = [];
  for (const s of input.sessions) {
    const i = at.get(s.transcriptPath);
    if (i === undefined) continue;
    const json = JSON.stringify(s, (k, v: unknown) => (LATE.has(k) ? undefined : v));
    // Without its closing brace: the late fields follow it.
    const text = Buffer.from(json.slice(0, -1), 'utf8');
    texts.push(text);
    sessions.push([i, s.id, s.cwd, s.forkOf ?? null, s.forkAt ?? null, text.length]);
  }
  const head: Head = { indexVersion: input.indexVersion, segments: [...input.segments].sort(), files: input.files.map((f) => [f.path, f.size, f.mtimeMs]), sessions };
  const hb = Buffer.from(JSON.stringify(head), 'utf8');
  const body = Buffer.concat(texts);
  const crc = crc32(body, crc32(hb));
  return Buffer.concat([Buffer.from(`${MAGIC}${hb.length} ${body.length} ${crc}\n`, 'latin1'), hb, body]);
}

/** One session of a snapshot: what a reader needs to fill in and filter, and its stored text. */
export interface SnapshotSession {
  id: string;
  cwd: string | null;
  transcriptPath: string;
  sizeBytes: number;
  mtimeMs: number;
  live: boolean;
  forkOf: string | null;
  forkAt: number | null;
  /** The summary as compact JSON (UTF-8), without `live`, `forkOf`, `forkAt` and the closing brace. */
  bytes: Buffer;
}

export interface ListSnapshot {
  indexVersion: number;
  segments: string[];
  files: Head['files'];
  sessions: SnapshotSession[];
}

/** The snapshot in `buf`, or null when it is damaged, cut or of another format (it is then remade). */
export function decodeListSnapshot(buf: Buffer, now: number): ListSnapshot | null {
  if (buf.length < MAGIC.length || buf.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
  const nl = buf.indexOf(10, MAGIC.length);
  const f = nl === -1 ? [] : buf.toString('latin1', MAGIC.length, nl).split(' ').map(Number);
  if (f.length !== 3 || f.some((x) => !Number.isSafeInteger(x) || x < 0)) return null;
  const [hLen, bLen, crc] = f as [number, number, number];
  if (buf.length !== nl + 1 + hLen + bLen) return null;
  const hb = buf.subarray(nl + 1, nl + 1 + hLen);
  const body = buf.subarray(nl + 1 + hLen);
  if (crc32(body, crc32(hb)) !== crc) return null;
  let head: Head;
  try {
    head = JSON.parse(hb.toString('utf8')) as Head;
  } catch {
    return null;
  }
  if (!Array.isArray(head?.segments) || !Array.isArray(head.files) || !Array.isArray(head.sessions)) return null;
  const sessions: SnapshotSession[] = [];
  let at = 0;
  for (const [i, id, cwd, forkOf, forkAt, len] of head.sessions) {
    const file = head.files[i];
    if (!file || at + len > body.length) return null;
    sessions.push({ id, cwd, transcriptPath: file[0], sizeBytes: file[1], mtimeMs: file[2], live: now - file[2] < LIVE_WINDOW_MS, forkOf, forkAt, bytes: body.subarray(at, at + len) });
    at += len;
  }
  if (at !== body.length) return null;
  return { indexVersion: head.indexVersion, segments: head.segments, files: head.files, sessions };
}

/**
 * The snapshot still says what the index would: made by this index format from exactly these
 * segment files, and every listed session file is one it holds, at the same size and time.
 */
export function snapshotIsFresh(snap: ListSnapshot, indexVersion: number, segments: string[], listed: SessionFile[][]): boolean {
  if (snap.indexVersion !== indexVersion) return false;
  const segs = [...segments].sort();
  if (segs.length !== snap.segments.length || segs.some((s, i) => s !== snap.segments[i])) return false;
  const held = new Map<string, [string, number, number]>();
  for (const f of snap.files) held.set(f[0], f);
  let n = 0;
  for (const files of listed)
    for (const f of files) {
      const h = held.get(f.path);
      if (!h || h[1] !== f.size || h[2] !== f.mtimeMs) return false;
      n++;
    }
  return n === held.size;
}

type Filled = Pick<SnapshotSession, 'bytes' | 'live' | 'forkOf' | 'forkAt'>;

/** The late fields of a snapshot session, as the JSON text that closes its entry. */
const lateJson = (s: Filled) => `,"live":${s.live},"forkOf":${JSON.stringify(s.forkOf)},"forkAt":${JSON.stringify(s.forkAt)}}`;

/** A snapshot session as the list entry it stands for (the late fields as given). */
export function snapshotJson(s: Filled): string {
  return s.bytes.toString('utf8') + lateJson(s);
}

/**
 * `{"root":…,"sessions":[…]}` as UTF-8, made from the stored bytes without decoding them: a list
 * of thousands of sessions is megabytes, and as strings it cost more than everything else.
 */
export function snapshotListBytes(root: string, sessions: Filled[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`{"root":${JSON.stringify(root)},"sessions":[`, 'utf8')];
  sessions.forEach((s, i) => {
    parts.push(s.bytes, Buffer.from(lateJson(s) + (i < sessions.length - 1 ? ',' : ''), 'utf8'));
  });
  parts.push(Buffer.from(']}\n', 'latin1'));
  return Buffer.concat(parts);
}

/**
 * The snapshot in index folder `dir` when it is fresh for these listed files, else null (missing,
 * damaged, or older than the index): the caller then opens the index.
 */
export function freshListSnapshot(dir: string, listed: SessionFile[][], now: number): ListSnapshot | null {
  const buf = readRegular(join(dir, LIST_SNAPSHOT));
  const snap = buf && decodeListSnapshot(buf, now);
  if (!snap) return null;
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.idx'));
  } catch {
    return null;
  }
  return snapshotIsFresh(snap, INDEX_VERSION, names, listed) ? snap : null;
}

/** A regular file's bytes; null for anything else (never blocks on a FIFO put in its place) or an error. */
function readRegular(path: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return got === buf.length ? buf : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
