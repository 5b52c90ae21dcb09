import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SessionSummary } from '../../../shared/session-schema.js';
import type { FileEnds } from '../adapter.js';
import { RewindError } from '../../errors.js';
import { writeBufferAtomic } from '../../io/atomic-write.js';
import { readHeadTail } from './head-tail.js';
import { claudeConfigRoot, projectDirMatches } from './paths.js';
import { countPrompts } from './prompt-count.js';
import { sessionIdFromPath } from './session-builder.js';

import { LIVE_WINDOW_MS } from '../live-window.js';

export { LIVE_WINDOW_MS };

export interface TranscriptFile {
  path: string;
  projectDir: string;
  sessionId: string;
  size: number;
  mtimeMs: number;
}

/** Every `<root>/projects/<dir>/<session>.jsonl` (subagent `agent-*.jsonl` files are not sessions). */
export async function listTranscriptFiles(root: string): Promise<TranscriptFile[]> {
  const projects = join(root, 'projects');
  const rootStat = await stat(root).catch(() => null);
  if (!rootStat) throw new RewindError('NOT_FOUND', `Claude config dir not found: ${root} (set CLAUDE_CONFIG_DIR or pass --claude-dir)`);
  if (!rootStat.isDirectory()) throw new RewindError('UNREADABLE', `Claude config dir is not a directory: ${root}`);
  let dirs: string[];
  try {
    dirs = await readdir(projects);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'EACCES' || code === 'EPERM') throw new RewindError('UNREADABLE', `cannot read ${projects}: permission denied`);
    throw e;
  }
  const out: TranscriptFile[] = [];
  await Promise.all(
    dirs.map(async (d) => {
      const dir = join(projects, d);
      const names = await readdir(dir).catch(() => [] as string[]);
      await Promise.all(
        names.map(async (name) => {
          if (!name.endsWith('.jsonl') || name.startsWith('agent-')) return;
          const p = join(dir, name);
          const st = await stat(p).catch(() => null);
          if (!st?.isFile()) return;
          out.push({ path: p, projectDir: dir, sessionId: name.slice(0, -'.jsonl'.length), size: st.size, mtimeMs: st.mtimeMs });
        }),
      );
    }),
  );
  out.sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path));
  return out;
}

interface CountCacheEntry {
  size: number;
  mtimeMs: number;
  count: number;
}

export { defaultCacheDir } from '../../io/cache-dir.js';

/** Prompt counts keyed by (path, size, mtime), so a repeated listing reads only what changed. */
export class PromptCountCache {
  private entries = new Map<string, CountCacheEntry>();
  private dirty = false;
  constructor(private readonly file: string | null) {}

  static async load(file: string | null): Promise<PromptCountCache> {
    const c = new PromptCountCache(file);
    if (!file) return c;
    try {
      const raw: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (raw && typeof raw === 'object') {
        for (const [k, v] of Object.entries(raw as Record<string, CountCacheEntry>)) {
          if (typeof v?.size === 'number' && typeof v.mtimeMs === 'number' && typeof v.count === 'number') c.entries.set(k, v);
        }
      }
    } catch {
      // A missing or broken cache is rebuilt.
    }
    return c;
  }

  get(f: TranscriptFile): number | null {
    const e = this.entries.get(f.path);
    return e && e.size === f.size && e.mtimeMs === f.mtimeMs ? e.count : null;
  }

  set(f: TranscriptFile, count: number): void {
    this.entries.set(f.path, { size: f.size, mtimeMs: f.mtimeMs, count });
    this.dirty = true;
  }

  async save(): Promise<void> {
    if (!this.file || !this.dirty) return;
    try {
      await mkdir(join(this.file, '..'), { recursive: true, mode: 0o700 });
      await writeBufferAtomic(this.file, JSON.stringify(Object.fromEntries(this.entries)));
      this.dirty = false;
    } catch {
      // The cache only saves time.
    }
  }
}

export interface ListSessionsOptions {
  root?: string;
  /** Only sessions whose cwd is this directory. */
  project?: string;
  /** Bytes we may stream to count prompts of uncached files in this call. */
  countBudgetBytes?: number;
  cache?: PromptCountCache;
  now?: number;
}

export async function listSessions(opts: ListSessionsOptions = {}): Promise<SessionSummary[]> {
  const root = opts.root ?? claudeConfigRoot();
  let files = await listTranscriptFiles(root);
  if (opts.project) {
    const project = opts.project;
    files = files.filter((f) => projectDirMatches(f.projectDir.split(/[\\/]/).pop() ?? '', project));
  }
  const now = opts.now ?? Date.now();
  let budget = opts.countBudgetBytes ?? 64 * 1024 * 1024;
  const cache = opts.cache ?? new PromptCountCache(null);
  const out: SessionSummary[] = [];
  for (const f of files) {
    if (f.size === 0) continue;
    const summary = await summarizeTranscript(f, now).catch(() => null);
    if (!summary) continue;
    if (opts.project && summary.cwd && summary.cwd !== opts.project) continue;
    let promptCount = cache.get(f);
    if (promptCount === null && f.size <= budget) {
      promptCount = await countPrompts(f.path).catch(() => null);
      if (promptCount !== null) {
        budget -= f.size;
        cache.set(f, promptCount);
      }
    }
    out.push({ ...summary, promptCount });
  }
  await cache.save();
  return out;
}

/** One transcript's list entry from its first and last 64 KiB (prompts not counted: null). */
export async function summarizeTranscript(f: { path: string; sessionId: string; size: number; mtimeMs: number; projectDir?: string }, now = Date.now(), window?: number, ends?: FileEnds): Promise<SessionSummary> {
  const info = await readHeadTail(f.path, f.size, window, ends);
  const title = info.customTitle ?? info.aiTitle ?? info.summary ?? info.firstPrompt ?? info.firstCommand ?? '(no prompt yet)';
  return {
    id: info.sessionId && f.sessionId !== info.sessionId ? f.sessionId : (info.sessionId ?? f.sessionId),
    agent: 'claude',
    title,
    cwd: info.cwd,
    projectDir: f.projectDir ?? dirname(f.path),
    transcriptPath: f.path,
    promptCount: null,
    livePromptCount: null,
    firstPrompt: info.firstPrompt,
    lastPrompt: info.lastPrompt,
    createdAt: info.firstTimestamp,
    lastActivity: new Date(f.mtimeMs).toISOString(),
    sizeBytes: f.size,
    version: info.version,
    live: now - f.mtimeMs < LIVE_WINDOW_MS,
    forkOf: null,
  };
}

/** Resolves an id, id prefix or path to a transcript file. */
export async function findSession(ref: string, root: string = claudeConfigRoot()): Promise<TranscriptFile> {
  if (ref.includes('/') || ref.includes('\\') || ref.endsWith('.jsonl')) {
    const st = await stat(ref).catch(() => null);
    if (!st) throw new RewindError('NOT_FOUND', `transcript not found: ${ref}`);
    if (!st.isFile()) throw new RewindError('INVALID_TRANSCRIPT', `not a transcript file: ${ref}`);
    return { path: ref, projectDir: join(ref, '..'), sessionId: sessionIdFromPath(ref), size: st.size, mtimeMs: st.mtimeMs };
  }
  const files = await listTranscriptFiles(root);
  const exact = files.find((f) => f.sessionId === ref);
  if (exact) return exact;
  const matches = files.filter((f) => f.sessionId.startsWith(ref));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new RewindError('USAGE', `session id prefix "${ref}" is ambiguous (${matches.length} sessions match)`);
  throw new RewindError('NOT_FOUND', `no session "${ref}" under ${join(root, 'projects')}`);
}

/** The newest transcript whose project folder matches `cwd`. */
export async function newestSessionFor(cwd: string, root: string = claudeConfigRoot()): Promise<TranscriptFile | null> {
  const files = await listTranscriptFiles(root);
  return files.find((f) => projectDirMatches(f.projectDir.split(/[\\/]/).pop() ?? '', cwd) && f.size > 0) ?? null;
}

