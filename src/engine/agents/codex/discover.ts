import { readFile, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { SessionSummary } from '../../../shared/session-schema.js';
import { LIVE_WINDOW_MS } from '../live-window.js';
import { RewindError } from '../../errors.js';
import { readFirstLine } from '../../io/first-line.js';
import { readRange } from '../../io/read-range.js';
import { promptOfEvent, promptOfItem } from './prompts.js';
import { parseRollout } from './rollout.js';
import { metaOf, rolloutName } from './thread.js';

/** `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
}

export interface RolloutFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Every `sessions/YYYY/MM/DD/rollout-*.jsonl` (and any other nesting): the home may not exist. */
export async function listRolloutFiles(home: string): Promise<RolloutFile[]> {
  const out: RolloutFile[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory() && depth < 4) await walk(p, depth + 1);
      else if (e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith('.jsonl')) {
        const st = await stat(p).catch(() => null);
        if (st) out.push({ path: p, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  await walk(join(home, 'sessions'), 0);
  return out;
}

/** Thread names users gave (`session_index.jsonl`, the last line for an id wins). */
async function threadNames(home: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const raw = await readFile(join(home, 'session_index.jsonl'), 'utf8').catch(() => '');
  for (const line of raw.split('\n')) {
    try {
      const v = JSON.parse(line) as { id?: unknown; thread_name?: unknown };
      if (typeof v.id === 'string' && typeof v.thread_name === 'string' && v.thread_name) names.set(v.id, v.thread_name);
    } catch {
      // a torn or foreign line
    }
  }
  return names;
}

/** The thread id a rollout's name carries: `rollout-<time>-<uuid>.jsonl`, or `..._<generation>.jsonl` after a revert. */
export function rolloutIdFromPath(path: string): string {
  return rolloutName(path).threadId ?? basename(path, '.jsonl');
}

/**
 * One file per thread: a revert leaves the thread's older files in place and writes a new
 * generation; the thread is the generation that started last (its `session_meta` timestamp).
 */
export async function currentGenerations(files: RolloutFile[]): Promise<RolloutFile[]> {
  const byThread = new Map<string, RolloutFile[]>();
  for (const f of files) {
    const id = rolloutIdFromPath(f.path);
    byThread.set(id, [...(byThread.get(id) ?? []), f]);
  }
  const out: RolloutFile[] = [];
  for (const group of byThread.values()) {
    if (group.length === 1) {
      out.push(group[0]!);
      continue;
    }
    const stamped = await Promise.all(group.map(async (f) => ({ f, ts: String(metaOf(await readFirstLine(f.path).catch(() => null))?.timestamp ?? '') })));
    stamped.sort((a, b) => a.ts.localeCompare(b.ts) || a.f.mtimeMs - b.f.mtimeMs);
    out.push(stamped[stamped.length - 1]!.f);
  }
  return out;
}

/** What a full read of a rollout tells the list, kept while its size and mtime stay the same. */
interface FullInfo {
  size: number;
  mtimeMs: number;
  promptCount: number;
  firstPrompt: string | null;
  lastPrompt: string | null;
}
const fullCache = new Map<string, FullInfo>();

/** The first line (`session_meta`, however long) and, when it is near the start, the first prompt. */
async function readHead(path: string): Promise<{ meta: Record<string, unknown> | null; firstPrompt: string | null; firstTimestamp: string | null }> {
  const first = await readFirstLine(path);
  const parse = (text: string): { type?: unknown; timestamp?: unknown; payload?: Record<string, unknown> } | null => {
    try {
      return JSON.parse(text) as { type?: unknown; timestamp?: unknown; payload?: Record<string, unknown> };
    } catch {
      return null;
    }
  };
  const e = first ? parse(first.toString('utf8')) : null;
  if (e?.type !== 'session_meta' || !e.payload) return { meta: null, firstPrompt: null, firstTimestamp: null };
  // The prompt follows the context Codex injects: look in the next 64 KiB, complete lines only.
  const next = await readRange(path, first!.length + 1, 64 * 1024);
  const lines = next.toString('utf8').split('\n');
  if (next.length === 64 * 1024) lines.pop();
  let firstPrompt: string | null = null;
  for (const line of lines) {
    const m = parse(line);
    const prompt = m?.type === 'response_item' ? promptOfItem(m.payload) : m?.type === 'event_msg' ? promptOfEvent(m.payload) : null;
    if (prompt) {
      firstPrompt = prompt.text;
      break;
    }
  }
  return { meta: e.payload, firstPrompt, firstTimestamp: typeof e.timestamp === 'string' ? e.timestamp : null };
}

/**
 * Codex sessions as the sidebar and `sessions` list them, newest first. Cheap like Claude's list:
 * the head of each rollout names it; prompts are counted by reading whole files only within a byte
 * budget per call (and remembered while a file is unchanged), else the count is left unknown.
 */
export async function listCodexSessions(opts: { home: string; project?: string; now?: number; countBudgetBytes?: number }): Promise<SessionSummary[]> {
  const files = await currentGenerations(await listRolloutFiles(opts.home));
  if (files.length === 0) return [];
  const names = await threadNames(opts.home);
  const now = opts.now ?? Date.now();
  let budget = opts.countBudgetBytes ?? 64 * 1024 * 1024;
  const out: SessionSummary[] = [];
  for (const f of files.sort((a, b) => b.mtimeMs - a.mtimeMs)) {
    if (f.size === 0) continue;
    const head = await readHead(f.path).catch(() => null);
    if (!head?.meta) continue;
    const cwd = typeof head.meta.cwd === 'string' ? head.meta.cwd : null;
    if (opts.project && (!cwd || resolve(cwd) !== resolve(opts.project))) continue;
    let full: FullInfo | null = fullCache.get(f.path) ?? null;
    if (full && (full.size !== f.size || full.mtimeMs !== f.mtimeMs)) full = null;
    if (!full && f.size <= budget) {
      const t = await parseRollout(f.path).catch(() => null);
      if (t) {
        budget -= f.size;
        full = { size: f.size, mtimeMs: f.mtimeMs, promptCount: t.prompts.length, firstPrompt: t.prompts[0]?.text ?? null, lastPrompt: t.prompts[t.prompts.length - 1]?.text ?? null };
        fullCache.set(f.path, full);
      }
    }
    const id = typeof head.meta.id === 'string' ? head.meta.id : rolloutIdFromPath(f.path);
    const firstPrompt = full?.firstPrompt ?? head.firstPrompt;
    out.push({
      id,
      agent: 'codex',
      title: names.get(id) ?? (firstPrompt ? firstPrompt.split('\n')[0]!.slice(0, 200) : '(no prompt yet)'),
      cwd,
      projectDir: dirname(f.path),
      transcriptPath: f.path,
      promptCount: full?.promptCount ?? null,
      livePromptCount: full?.promptCount ?? null,
      firstPrompt,
      lastPrompt: full?.lastPrompt ?? null,
      createdAt: head.firstTimestamp,
      lastActivity: new Date(f.mtimeMs).toISOString(),
      sizeBytes: f.size,
      version: typeof head.meta.cli_version === 'string' ? head.meta.cli_version : null,
      live: now - f.mtimeMs < LIVE_WINDOW_MS,
      // A revert's generation names its own thread as its base: only another thread makes a fork.
      forkOf: typeof head.meta.forked_from_id === 'string' && head.meta.forked_from_id !== id ? head.meta.forked_from_id : null,
    });
  }
  // Walked newest first (the count budget goes to recent sessions); lastActivity is that mtime.
  return out;
}

/** A Codex session by id, id prefix or rollout path. */
export async function findCodexSession(ref: string, home: string): Promise<string | null> {
  const files = await currentGenerations(await listRolloutFiles(home));
  const exact = files.find((f) => rolloutIdFromPath(f.path) === ref);
  if (exact) return exact.path;
  const matches = files.filter((f) => rolloutIdFromPath(f.path).startsWith(ref));
  if (matches.length > 1) throw new RewindError('USAGE', `"${ref}" matches ${matches.length} Codex sessions: give more of the id`);
  return matches[0]?.path ?? null;
}
