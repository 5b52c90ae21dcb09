import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { readLines } from '../io/read-lines.js';
import type { PromptLines } from '../prompt-search.js';
import { fold } from './fold.js';
import type { Counts, Fingerprint } from './segment.js';

/** How many recent messages' depths a record keeps, so an append usually finds its parent. */
const RECENT = 64;
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
export async function fingerprintOf(path: string, headLen?: number): Promise<{ fp: Fingerprint; headAgain: string | null }> {
  const fh = await open(path, 'r');
  try {
    const st = await fh.stat();
    const buf = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
    if (buf.length) await fh.read(buf, 0, buf.length, 0);
    const hash = (b: Buffer) => createHash('sha1').update(b).digest('hex');
    const headAgain = headLen === undefined ? null : headLen <= buf.length ? hash(buf.subarray(0, headLen)) : 'shorter';
    return { fp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, head: hash(buf), headLen: buf.length }, headAgain };
  } finally {
    await fh.close();
  }
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
  const res = await readLines(
    path,
    (line) => {
      let isPrompt = false;
      if (line.bytes.indexOf(lines.marker) !== -1) {
        let v: unknown;
        try {
          v = JSON.parse(line.bytes.toString('utf8'));
        } catch {
          v = null;
        }
        const p = typeof v === 'object' && v !== null && !Array.isArray(v) ? lines.prompt(v as Record<string, unknown>, line.offset) : null;
        if (p) {
          isPrompt = true;
          total++;
          prompts.push({ uuid: p.uuid, offset: line.offset, timestamp: p.timestamp ?? null, text: p.text, folded: fold(p.text) });
        }
      }
      if (!lines.link) return;
      const l = lines.link(line.bytes);
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
    { fromOffset: prev.indexedTo, fromIndex: prev.lineCount },
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
