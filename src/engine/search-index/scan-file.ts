import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { FileEnds } from '../agents/adapter.js';
import type { PromptLines } from '../prompts/search.js';
import { fold } from './fold.js';
import { CANDIDATE, lineScanner, MESSAGE, type LineScanner } from './line-scanner.js';
import type { Counts, Fingerprint } from './segment.js';

const HEAD_BYTES = 4096;

export interface ScanState {
  indexedTo: number;
  lineCount: number;
  counts: Counts;
  recent: Record<string, number>;
  leaf: string | null;
}

export const EMPTY_STATE: ScanState = { indexedTo: 0, lineCount: 0, counts: { total: 0, live: 0 }, recent: {}, leaf: null };

export interface ScanResult {
  state: ScanState;
  prompts: { uuid: string; offset: number; timestamp: string | null; text: string; folded: string }[];
  /** An appended message hangs under one we no longer remember: the caller reads the file whole. */
  needsFullScan: boolean;
}

/**
 * Bytes per read: a piece that stays in the core's cache while its lines are searched (read and
 * newline search alone over the 0.25 history: 286-291 ms in 128 KiB pieces, 319 ms in 1 MiB ones).
 */
const READ = 128 * 1024;

/** Loaded when a file is first read (a warm search reads none: node:crypto costs ~2 ms to load). */
function sha1(b: Buffer): string {
  return process.getBuiltinModule('node:crypto').createHash('sha1').update(b).digest('hex');
}

/**
 * The file's fingerprint (taken from its stat and its first bytes, already read), and its head
 * hashed over `headLen` bytes (what an earlier fingerprint covered).
 */
function fingerprintOf(st: { size: number; mtimeMs: number; ino: number }, first: Buffer, headLen?: number): { fp: Fingerprint; headAgain: string | null } {
  const head = first.subarray(0, HEAD_BYTES);
  const headAgain = headLen === undefined ? null : headLen <= head.length ? sha1(head.subarray(0, headLen)) : 'shorter';
  return { fp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, head: sha1(head), headLen: head.length }, headAgain };
}

/**
 * Complete lines of the open file from `from` up to `size` (what its fingerprint saw: bytes appended
 * meanwhile are the next refresh's), read in large pieces into the scanner's input, which stays
 * the thread's for every file (fresh buffers for 2,500 files cost more in page faults and garbage
 * collection than the reads). `onLine` gets the line's bounds in `sc.input` (read it there: the
 * input may be a new Buffer after any call into the scanner).
 */
function eachLine(
  sc: LineScanner,
  fd: number,
  size: number,
  from: number,
  fromIndex: number,
  onLine: (start: number, stop: number, offset: number) => void,
  keep?: KeptEnds,
): { endOffset: number; lineCount: number } {
  let count = fromIndex;
  let carry = 0;
  let pos = from;
  while (pos < size) {
    if (sc.input.length - carry < READ) {
      // A line longer than the input: grow it (kept for the next such line).
      sc.grow(Math.max(sc.input.length * 2, carry + READ));
    }
    const carried = carry;
    let len = Math.min(READ, size - pos);
    // Ends wanted: leave at least ENDS_BYTES for the last read, so the tail is in the buffer then.
    const rest = size - pos - len;
    if (keep && rest > 0 && rest < ENDS_BYTES && len > ENDS_BYTES - rest) len -= ENDS_BYTES - rest;
    const n = readSync(fd, sc.input, carry, len, pos);
    if (n === 0) break;
    pos += n;
    const end = carry + n;
    const base = pos - end;
    if (keep) {
      // Copied into the file's ends buffer: the input is the thread's, reused by the next piece.
      if (base === 0 && keep.head === null && end >= Math.min(size, ENDS_BYTES)) {
        const n = Math.min(size, ENDS_BYTES);
        keep.store.set(sc.input.subarray(0, n), 0);
        keep.head = keep.store.subarray(0, n);
      }
      if (pos === size && size > ENDS_BYTES && end >= ENDS_BYTES) {
        keep.store.set(sc.input.subarray(end - ENDS_BYTES, end), ENDS_BYTES);
        keep.tail = keep.store.subarray(ENDS_BYTES);
      }
    }
    let at = 0;
    let buf = sc.input;
    let view = buf.subarray(0, end);
    // The bytes carried over hold no newline: the search starts after them (a long line is searched once).
    for (let nl = view.indexOf(10, carried); nl !== -1; nl = view.indexOf(10, at)) {
      const stop = nl > at && view[nl - 1] === 13 ? nl - 1 : nl;
      onLine(at, stop, base + at);
      count++;
      at = nl + 1;
      if (sc.input !== buf) {
        buf = sc.input;
        view = buf.subarray(0, end);
      }
    }
    carry = end - at;
    if (carry > 0 && at > 0) sc.input.copy(sc.input, 0, at, end);
  }
  return { endOffset: pos - carry, lineCount: count };
}

/**
 * Reads a session file from `prev.indexedTo` on (only complete lines): the prompts it adds, folded
 * for search, and the prompt counts. Each line is checked once in the scanner (line-scanner.ts):
 * only lines holding the agent's prompt marker are parsed, and the live path is followed from each
 * message's id and parent (`links`) in the scanner's depth table.
 */
function scanFd(fd: number, size: number, lines: PromptLines, prev: ScanState, ends?: KeptEnds): ScanResult {
  const sc = lineScanner();
  sc.start(lines, prev.recent);
  let total = prev.counts.total;
  const prompts: ScanResult['prompts'] = [];
  const res = eachLine(
    sc,
    fd,
    size,
    prev.indexedTo,
    prev.lineCount,
    (start, stop, offset) => {
      const code = sc.line(start, stop);
      if (!(code & CANDIDATE)) return;
      let v: unknown;
      try {
        v = JSON.parse(sc.input.toString('utf8', start, stop));
      } catch {
        v = null;
      }
      const p = typeof v === 'object' && v !== null && !Array.isArray(v) ? lines.prompt(v as Record<string, unknown>, offset) : null;
      if (p) {
        total++;
        prompts.push({ uuid: p.uuid, offset, timestamp: p.timestamp ?? null, text: p.text, folded: fold(p.text) });
      }
      if (code & MESSAGE) sc.commit(p !== null);
    },
    ends,
  );
  const f = sc.finish(prev.recent, prev.leaf);
  return {
    state: { indexedTo: res.endOffset, lineCount: res.lineCount, counts: { total, live: lines.links ? f.live : total }, recent: lines.links ? f.recent : {}, leaf: lines.links ? f.leaf : null },
    prompts,
    needsFullScan: prev.indexedTo > 0 && f.missing,
  };
}

/** What the index knew of a file before this read: its fingerprint and where the scan stopped. */
export interface PreviousScan {
  fp: Fingerprint;
  state: ScanState;
}

export interface SessionScan extends ScanResult {
  fp: Fingerprint;
  /** The file's first and last bytes (as of `fp`), for the adapter's summary: no second open. */
  ends: FileEnds;
  /** append: `prompts` continue the previous records; full: they are the whole file. */
  mode: 'full' | 'append';
  from: number;
  /** Gives `ends`' memory back to the thread's pool: call it once the summary is made, and use `ends` no more. */
  release(): void;
}

/**
 * Fingerprints and reads one session file through one descriptor: only the appended bytes when it
 * grew (same inode, same head), else the whole of it. Throws when it cannot be opened or read.
 */
export function scanSession(path: string, lines: PromptLines, prev: PreviousScan | null): SessionScan {
  const store = takeStore();
  let given = false;
  const release = () => {
    if (given) return;
    given = true;
    pool.push(store);
  };
  // Non-blocking: a FIFO put where a session was listed never hangs the index (no effect on a file).
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    // Synchronous: an index runs on the CLI or a worker thread, never the UI's thread.
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (!prev) {
      // A new file is read whole from its start: its ends come from the scan's own reads (no reads of their own).
      const keep: KeptEnds = { store, head: null, tail: null };
      const scan = scanFd(fd, st.size, lines, EMPTY_STATE, keep);
      const head = keep.head ?? readAt(fd, Math.min(st.size, ENDS_BYTES), 0, store, 0);
      const tail = st.size <= ENDS_BYTES ? head : (keep.tail ?? readAt(fd, ENDS_BYTES, st.size - ENDS_BYTES, store, ENDS_BYTES));
      return { ...scan, fp: fingerprintOf(st, head).fp, ends: { size: st.size, head, tail }, mode: 'full', from: 0, release };
    }
    const ends = readEnds(fd, st.size, store);
    const { fp, headAgain } = fingerprintOf(st, ends.head, prev.fp.headLen);
    if (fp.ino === prev.fp.ino && headAgain === prev.fp.head && fp.size > prev.fp.size && fp.size >= prev.state.indexedTo) {
      const scan = scanFd(fd, fp.size, lines, prev.state);
      if (!scan.needsFullScan) return { ...scan, fp, ends, mode: 'append', from: prev.state.indexedTo, release };
    }
    return { ...scanFd(fd, fp.size, lines, EMPTY_STATE), fp, ends, mode: 'full', from: 0, release };
  } catch (e) {
    release();
    throw e;
  } finally {
    closeSync(fd);
  }
}

/** Bytes of each end a scan reads: the fingerprint's head, and the adapter's summary (Claude reads 16 KiB at each end, or all of a file up to 32 KiB). */
export const ENDS_BYTES = 32 * 1024;

/**
 * A file's ends in one buffer of 2 x ENDS_BYTES (head, then tail), taken from the thread's pool and
 * given back once the file's summary is made: fresh 32 KiB buffers for every file cost page faults
 * and full garbage collections (160 MB of short-lived memory over 2,500 files).
 */
interface KeptEnds {
  store: Buffer;
  head: Buffer | null;
  tail: Buffer | null;
}

const pool: Buffer[] = [];

function takeStore(): Buffer {
  return pool.pop() ?? Buffer.allocUnsafeSlow(2 * ENDS_BYTES);
}

/** `len` bytes at `at` into `into` at `to` (fewer when the file is shorter now). */
function readAt(fd: number, len: number, at: number, into: Buffer, to: number): Buffer {
  let got = 0;
  while (got < len) {
    const n = readSync(fd, into, to + got, len - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return into.subarray(to, to + got);
}

function readEnds(fd: number, size: number, store: Buffer): FileEnds {
  const head = readAt(fd, Math.min(size, ENDS_BYTES), 0, store, 0);
  const tail = size <= ENDS_BYTES ? head : readAt(fd, ENDS_BYTES, size - ENDS_BYTES, store, ENDS_BYTES);
  return { size, head, tail };
}
