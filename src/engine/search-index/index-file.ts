import type { AgentAdapter, SessionFile, StoreIndexEntry } from '../agents/adapter.js';
import { fold } from './fold.js';
import type { SessionSummary } from '../../shared/session-schema.js';
import { oneLine } from '../turn/text.js';
import { scanSession, type PreviousScan } from './scan-file.js';
import { encodeJson, packPrompts, type FileMeta, type SegmentInput } from './segment.js';

/** One file's record for the next segment (what a refresh learned about it). */
export type FileInput = SegmentInput['files'][number];

/** One file to (re)index: plain data, so it can cross to a worker thread. */
export interface IndexJob {
  agent: string;
  file: SessionFile;
  /** What the index knew (null: a new file): an append continues from it. */
  prev: PreviousScan | null;
  /** The previous records' first and last prompt, kept when only an append is read. */
  prevPrompts: { first: string | null; last: string | null } | null;
  now?: number;
}

/**
 * Reads one session file (its appended bytes, or all of it) and summarizes it. `summarize` gives
 * the summary for adapters without `summarizeFile` (the caller lists them once per root).
 */
export async function indexFile(adapter: AgentAdapter, job: IndexJob, summarize?: (f: SessionFile) => Promise<SessionSummary | null>): Promise<FileInput> {
  const { file: f, prev } = job;
  const scan = scanSession(f.path, adapter.promptLines, prev);
  const { fp, mode } = scan;
  const file: SessionFile = { ...f, size: fp.size, mtimeMs: fp.mtimeMs };
  let summary: SessionSummary | null;
  try {
    summary = adapter.summarizeFile ? await adapter.summarizeFile(file, job.now, scan.ends).catch(() => null) : ((await summarize?.(file)) ?? null);
  } finally {
    // The ends' memory goes back to the thread's pool (the summary keeps nothing of it).
    scan.release();
  }
  if (summary) {
    // First and last prompt from the prompts themselves (the file's ends may not hold them).
    const first = mode === 'append' ? (job.prevPrompts?.first ?? null) : null;
    const a = scan.prompts[0];
    const z = scan.prompts[scan.prompts.length - 1];
    summary = {
      ...summary,
      firstPrompt: first ?? (a ? oneLine(a.text, 200) : summary.firstPrompt),
      lastPrompt: z ? oneLine(z.text, 200) : mode === 'append' ? (job.prevPrompts?.last ?? summary.lastPrompt) : summary.lastPrompt,
    };
    if (summary.title === '(no prompt yet)' && summary.firstPrompt) summary.title = summary.firstPrompt;
  }
  const meta: FileMeta = { prompts: scan.prompts.map((p) => [p.uuid, p.offset, p.timestamp]), recent: scan.state.recent, leaf: scan.state.leaf };
  return {
    mode,
    path: f.path,
    agent: adapter.id,
    sessionId: summary?.id ?? f.sessionId,
    fp,
    from: scan.from,
    indexedTo: scan.state.indexedTo,
    lineCount: scan.state.lineCount,
    counts: scan.state.counts,
    summary,
    // Made here, on the thread that read the file, while the others still read: not at the final
    // write. The meta is then held only as JSON: its many small arrays die young instead of being
    // copied by every scavenge until the segment is written.
    json: encodeJson(meta, summary),
    meta: JSON_ONLY,
    packed: packPrompts(
      scan.prompts.map((p) => p.text),
      scan.prompts.map((p) => p.folded),
    ),
  };
}

/**
 * One session of a store file (an agent with `storeIndex`): its record made from what the adapter
 * read (`entry`; null: the session is gone), not from lines. Always a whole record: its
 * fingerprint is the listing's size and time, with no inode or head (none of its own).
 */
export function storeSessionRecord(adapter: AgentAdapter, job: IndexJob, entry: StoreIndexEntry | null): FileInput {
  const f = job.file;
  if (!entry) throw Object.assign(new Error('gone from its store'), { code: 'ENOENT' });
  const prompts = entry.prompts;
  const live = entry.summary.livePromptCount ?? prompts.length;
  const summary: SessionSummary = { ...entry.summary, firstPrompt: prompts[0] ? oneLine(prompts[0].text, 200) : null, lastPrompt: prompts.length ? oneLine(prompts[prompts.length - 1]!.text, 200) : null };
  const meta: FileMeta = { prompts: prompts.map((p, i) => [p.uuid, i, p.timestamp]), recent: {}, leaf: null };
  return {
    mode: 'full',
    path: f.path,
    agent: adapter.id,
    sessionId: entry.summary.id,
    fp: { size: f.size, mtimeMs: f.mtimeMs, ino: 0, head: '', headLen: 0 },
    from: 0,
    indexedTo: f.size,
    lineCount: entry.messages,
    counts: { total: prompts.length, live },
    summary,
    json: encodeJson(meta, summary),
    meta: JSON_ONLY,
    packed: packPrompts(
      prompts.map((p) => p.text),
      prompts.map((p) => fold(p.text)),
    ),
  };
}

/** What stands for a record's meta once it is held as JSON (`json`, which the segment's encoder uses). */
const JSON_ONLY: FileMeta = Object.freeze({ prompts: [], recent: {}, leaf: null }) as FileMeta;

/** Why a file could not be indexed, in one line. */
export function skipReason(e: unknown): string {
  return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'vanished while indexing' : `unreadable: ${(e as Error).message}`;
}
