import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { readLines } from '../io/read-lines.js';
import type { PromptLines } from '../prompt-search.js';
import { fold } from './fold.js';
import type { Counts, Fingerprint } from './segment.js';

/** How many recent messages' depths a record keeps, so an append usually finds its parent. */
const RECENT = 16;
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

/** The file's fingerprint, and its head hashed over `headLen` bytes (what an earlier fingerprint covered). */
export function fingerprintOf(path: string, headLen?: number): { fp: Fingerprint; headAgain: string | null } {
  // Synchronous: a few KiB, and an index runs on the CLI or the engine worker, never the UI's thread.
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd);
    const buf = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
    if (buf.length) readSync(fd, buf, 0, buf.length, 0);
    const hash = (b: Buffer) => createHash('sha1').update(b).digest('hex');
    const headAgain = headLen === undefined ? null : headLen <= buf.length ? hash(buf.subarray(0, headLen)) : 'shorter';
    return { fp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, head: hash(buf), headLen: buf.length }, headAgain };
  } finally {
    closeSync(fd);
  }
}

/** Below this, the new bytes are read in one synchronous read (most sessions): far fewer calls than streaming. */
const WHOLE_READ = 8 * 1024 * 1024;

/** Complete lines of `path` from `from`, like readLines, in one read when the range is small. */
async function eachLine(path: string, from: number, fromIndex: number, onLine: (bytes: Buffer, offset: number) => void): Promise<{ endOffset: number; lineCount: number }> {
  const fd = openSync(path, 'r');
  let size: number;
  try {
    size = fstatSync(fd).size;
    if (size - from <= WHOLE_READ) {
      const buf = Buffer.allocUnsafe(Math.max(0, size - from));
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, from + got);
        if (n === 0) break;
        got += n;
      }
      let at = 0;
      let count = fromIndex;
      for (let nl = buf.indexOf(10, 0); nl !== -1 && nl < got; nl = buf.indexOf(10, at)) {
        const end = nl > at && buf[nl - 1] === 13 ? nl - 1 : nl;
        onLine(buf.subarray(at, end), from + at);
        count++;
        at = nl + 1;
      }
      return { endOffset: from + at, lineCount: count };
    }
  } finally {
    closeSync(fd);
  }
  const res = await readLines(path, (line) => onLine(line.bytes, line.offset), { fromOffset: from, fromIndex });
  return { endOffset: res.endOffset, lineCount: res.lineCount };
}

/**
 * Reads a session file from `prev.indexedTo` on (only complete lines): the prompts it adds, folded
 * for search, and the prompt counts. Only lines holding the agent's prompt marker are parsed; the
 * live path is followed from each message's raw bytes (`link`).
 */
export async function scanFile(path: string, lines: PromptLines, prev: ScanState): Promise<ScanResult> {
  const depth = new Map<string, number>(Object.entries(prev.recent));
  let leaf = prev.leaf;
  let total = prev.counts.total;
  let missing = false;
  const prompts: ScanResult['prompts'] = [];
  const order: string[] = [];
  const res = await eachLine(
    path,
    prev.indexedTo,
    prev.lineCount,
    (bytes, offset) => {
      let isPrompt = false;
      if (bytes.indexOf(lines.marker) !== -1 && !(lines.notPrompt && bytes.indexOf(lines.notPrompt) !== -1)) {
        let v: unknown;
        try {
          v = JSON.parse(bytes.toString('utf8'));
        } catch {
          v = null;
        }
        const p = typeof v === 'object' && v !== null && !Array.isArray(v) ? lines.prompt(v as Record<string, unknown>, offset) : null;
        if (p) {
          isPrompt = true;
          total++;
          prompts.push({ uuid: p.uuid, offset, timestamp: p.timestamp ?? null, text: p.text, folded: fold(p.text) });
        }
      }
      if (!lines.link) return;
      const l = lines.link(bytes);
      if (!l) return;
      let base = 0;
      if (l.parent !== null) {
        const d = depth.get(l.parent);
        if (d === undefined) {
          if (prev.indexedTo > 0) missing = true;
        } else base = d;
      }
      depth.set(l.id, base + (isPrompt ? 1 : 0));
      order.push(l.id);
      leaf = l.id;
    },
  );
  let live: number;
  if (lines.link) live = leaf ? (depth.get(leaf) ?? 0) : 0;
  else live = total;
  const recent: Record<string, number> = {};
  const keep = order.length >= RECENT ? order.slice(-RECENT) : [...Object.keys(prev.recent).slice(-(RECENT - order.length)), ...order];
  for (const id of keep) recent[id] = depth.get(id) ?? 0;
  return {
    state: { indexedTo: res.endOffset, lineCount: res.lineCount, counts: { total, live }, recent, leaf },
    prompts,
    needsFullScan: missing,
  };
}
