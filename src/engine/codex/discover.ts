import { readFile, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { SessionSummary } from '../../shared/session-schema.js';
import { LIVE_WINDOW_MS } from '../claude/discover.js';
import { RewindError } from '../errors.js';
import { readRollout } from './rollout.js';

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

/** Rollouts bigger than this are listed from their name and size only (prompt count unknown). */
const FULL_READ_MAX = 16 * 1024 * 1024;

/** The id a rollout's name ends with: `rollout-2026-01-02T03-04-05-<uuid>.jsonl`. */
export function rolloutIdFromPath(path: string): string {
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(basename(path));
  return m ? m[1]! : basename(path, '.jsonl');
}

/** Codex sessions as the sidebar and `sessions` list them, newest first. */
export async function listCodexSessions(opts: { home: string; project?: string; now?: number }): Promise<SessionSummary[]> {
  const files = await listRolloutFiles(opts.home);
  if (files.length === 0) return [];
  const names = await threadNames(opts.home);
  const now = opts.now ?? Date.now();
  const out: SessionSummary[] = [];
  for (const f of files) {
    const id = rolloutIdFromPath(f.path);
    let summary: SessionSummary = {
      id,
      agent: 'codex',
      title: names.get(id) ?? '(not read: large rollout)',
      cwd: null,
      projectDir: dirname(f.path),
      transcriptPath: f.path,
      promptCount: null,
      firstPrompt: null,
      lastPrompt: null,
      createdAt: null,
      lastActivity: new Date(f.mtimeMs).toISOString(),
      sizeBytes: f.size,
      version: null,
      live: now - f.mtimeMs < LIVE_WINDOW_MS,
      forkOf: null,
    };
    if (f.size > 0 && f.size <= FULL_READ_MAX) {
      const r = await readRollout(f.path).catch(() => null);
      if (!r) continue;
      const t = r.timeline;
      const first = t.prompts[0]?.text ?? null;
      summary = {
        ...summary,
        id: t.session.id,
        title: names.get(t.session.id) ?? (first ? first.split('\n')[0]!.slice(0, 200) : '(no prompt yet)'),
        cwd: t.session.cwd,
        promptCount: t.prompts.length,
        firstPrompt: first,
        lastPrompt: t.prompts[t.prompts.length - 1]?.text ?? null,
        createdAt: t.session.firstTimestamp,
        version: t.session.version,
        forkOf: r.forkedFrom,
      };
    }
    if (opts.project && (!summary.cwd || resolve(summary.cwd) !== resolve(opts.project))) continue;
    out.push(summary);
  }
  return out.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
}

/** A Codex session by id, id prefix or rollout path. */
export async function findCodexSession(ref: string, home: string): Promise<string | null> {
  const files = await listRolloutFiles(home);
  const exact = files.find((f) => rolloutIdFromPath(f.path) === ref);
  if (exact) return exact.path;
  const matches = files.filter((f) => rolloutIdFromPath(f.path).startsWith(ref));
  if (matches.length > 1) throw new RewindError('USAGE', `"${ref}" matches ${matches.length} Codex sessions: give more of the id`);
  return matches[0]?.path ?? null;
}
