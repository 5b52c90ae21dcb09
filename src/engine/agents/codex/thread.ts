import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RewindError } from '../../errors.js';
import { readFirstLine } from '../../io/first-line.js';
import { parseJsonLine } from '../../io/json-line.js';
import { readLines } from '../../io/read-lines.js';

/**
 * A Codex thread's whole history, whatever file layout holds it (FORMATS.md §2). Codex 0.169 writes
 * references: a fork's `session_meta` names its parent (`forked_from_id` +
 * `forked_from_ordinal_exclusive`) and a revert writes a new generation file of the same thread
 * (`..._<generation>.jsonl`, `history_base {thread_id, end_ordinal_exclusive}`); the lines before
 * that ordinal live in the other file. Reading a thread follows those references, so the prompts
 * shown (and a fork written) are the ones the thread really has.
 */

export type Rec = { timestamp?: unknown; ordinal?: unknown; type?: unknown; payload?: Record<string, unknown> };

export interface ThreadLine {
  /** The file holding this line and where it is in it. */
  path: string;
  offset: number;
  length: number;
  /** 0-based line number in its file. */
  index: number;
  /** Position in the thread's history as if it were one file (equal to `offset` for a self-contained rollout). */
  vOffset: number;
  rec: Rec;
  /** The line's bytes without its LF. */
  bytes: Buffer;
}

export interface Thread {
  path: string;
  /** This file's `session_meta` payload (null: none, an older or foreign file). */
  meta: Record<string, unknown> | null;
  /** The first `session_meta` of the chain (the thread's origin: base instructions, cwd). */
  rootMeta: Record<string, unknown> | null;
  /** Every history line in order, the inherited ones first; no `session_meta` lines. */
  lines: ThreadLine[];
  /** How many of `lines` come from other files. */
  inherited: number;
  /** Files read, this one last. */
  chain: string[];
  /** The thread this file continues when its rollout is not here: only this file's own lines are shown. */
  missingBase: string | null;
  size: number;
  lineCount: number;
  issues: { line: number; offset: number; reason: string }[];
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const NAME = new RegExp(`(${UUID})(?:_(${UUID}))?\\.jsonl$`, 'i');

/** The thread id and (for a revert's generation file) the generation id a rollout's name carries. */
export function rolloutName(path: string): { threadId: string | null; generation: string | null } {
  const m = NAME.exec(basename(path));
  return { threadId: m?.[1] ?? null, generation: m?.[2] ?? null };
}

/** `$CODEX_HOME` of a rollout under `sessions/YYYY/MM/DD/`, else null. */
export function homeOfRollout(path: string): string | null {
  const dd = dirname(path);
  const mm = dirname(dd);
  const yyyy = dirname(mm);
  const sessions = dirname(yyyy);
  if (basename(sessions) !== 'sessions' || !/^\d{4}$/.test(basename(yyyy))) return null;
  return dirname(sessions);
}

async function rolloutsUnder(dir: string, depth: number, out: string[]): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, e.name);
    if (e.isDirectory() && depth < 4) await rolloutsUnder(p, depth + 1, out);
    else if (e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith('.jsonl')) out.push(p);
  }
}

export function metaOf(first: Buffer | null): Record<string, unknown> | null {
  if (!first) return null;
  const parsed = parseJsonLine(first);
  if (!parsed.ok || parsed.value.type !== 'session_meta') return null;
  const p = (parsed.value as Rec).payload;
  return p && typeof p === 'object' ? p : null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Where the prefix of a referencing file lives: the thread and the ordinal it stops before. */
export function baseOf(meta: Record<string, unknown> | null): { threadId: string; endOrdinal: number } | null {
  if (!meta) return null;
  const hb = meta.history_base as Record<string, unknown> | undefined;
  const thread = str(hb?.thread_id) ?? str(meta.forked_from_id);
  const end = typeof hb?.end_ordinal_exclusive === 'number' ? hb.end_ordinal_exclusive : meta.forked_from_ordinal_exclusive;
  if (!thread || typeof end !== 'number') return null;
  return { threadId: thread, endOrdinal: end };
}

/**
 * The file holding `threadId`'s history as it was when `asOf` was written: among the thread's files
 * (its first file and its revert generations), the newest that is not `exclude` and started no
 * later than `asOf`.
 */
async function baseFile(home: string | null, near: string, threadId: string, exclude: string, asOf: string | null): Promise<string | null> {
  const files: string[] = [];
  await rolloutsUnder(home ? join(home, 'sessions') : dirname(near), home ? 0 : 4, files);
  const candidates: { path: string; ts: string }[] = [];
  for (const f of files) {
    if (f === exclude || rolloutName(f).threadId !== threadId) continue;
    const meta = metaOf(await readFirstLine(f).catch(() => null));
    candidates.push({ path: f, ts: str(meta?.timestamp) ?? '' });
  }
  candidates.sort((a, b) => a.ts.localeCompare(b.ts));
  const before = asOf ? candidates.filter((c) => c.ts <= asOf) : candidates;
  return (before[before.length - 1] ?? candidates[candidates.length - 1])?.path ?? null;
}

const MAX_DEPTH = 32;

/** Reads a rollout and, through its references, the history it continues. */
export async function readThread(path: string, depth = 0, seen = new Set<string>()): Promise<Thread> {
  if (seen.has(path) || depth > MAX_DEPTH) throw new RewindError('INVALID_TRANSCRIPT', `Codex rollout references loop back to ${path}`);
  seen.add(path);
  const own: ThreadLine[] = [];
  const issues: Thread['issues'] = [];
  let meta: Record<string, unknown> | null = null;
  const res = await readLines(path, (line) => {
    if (line.bytes.length === 0) return;
    const parsed = parseJsonLine(line.bytes);
    if (!parsed.ok) {
      issues.push({ line: line.index + 1, offset: line.offset, reason: parsed.reason });
      return;
    }
    const rec = parsed.value as Rec;
    if (rec.type === 'session_meta') {
      if (line.index === 0 && rec.payload && typeof rec.payload === 'object') meta = rec.payload;
      return;
    }
    own.push({ path, offset: line.offset, length: line.length, index: line.index, vOffset: line.offset, rec, bytes: line.bytes });
  });
  const base = baseOf(meta);
  if (!base) return { path, meta, rootMeta: meta, lines: own, inherited: 0, chain: [path], size: res.size, lineCount: res.lineCount, issues, missingBase: null };
  const m = meta as Record<string, unknown> | null;
  const file = await baseFile(homeOfRollout(path), path, base.threadId, path, str(m?.timestamp));
  if (!file) {
    issues.push({ line: 1, offset: 0, reason: `continues thread ${base.threadId}, whose rollout is not here: its earlier prompts are not shown` });
    return { path, meta, rootMeta: meta, lines: own, inherited: 0, chain: [path], size: res.size, lineCount: res.lineCount, issues, missingBase: base.threadId };
  }
  const parent = await readThread(file, depth + 1, seen);
  const prefix = parent.lines.filter((l) => typeof l.rec.ordinal !== 'number' || l.rec.ordinal < base.endOrdinal);
  // Own lines are placed after the prefix, as they would sit in one self-contained file.
  const ownStart = own[0]?.offset ?? res.size;
  let end = 0;
  for (const l of prefix) end = Math.max(end, l.vOffset + l.length);
  const shifted = own.map((l) => ({ ...l, vOffset: end + (l.offset - ownStart) }));
  return {
    path,
    meta,
    rootMeta: parent.rootMeta ?? meta,
    lines: [...prefix, ...shifted],
    inherited: prefix.length,
    chain: [...parent.chain, path],
    missingBase: parent.missingBase,
    size: res.size,
    lineCount: res.lineCount,
    issues,
  };
}
