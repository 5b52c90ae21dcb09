import { inProject, summaryOfTimeline } from '../summary-of-timeline.js';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { SessionSummary, Timeline } from '../../../shared/session-schema.js';
import { LIVE_WINDOW_MS } from '../live-window.js';
import { RewindError } from '../../errors.js';
import { FileMemo, listFiles, type AgentFile } from '../session-files.js';
import { geminiTimeline } from './parse.js';

/** `<root>/tmp/<project slug>/chats/session-*.jsonl`. */
export async function listGeminiFiles(root: string): Promise<AgentFile[]> {
  return listFiles(join(root, 'tmp'), 2, (name, p) => name.startsWith('session-') && name.endsWith('.jsonl') && basename(dirname(p)) === 'chats');
}

/** The folder each project slug stands for (`<root>/projects.json`: `{projects: {<path>: <slug>}}`). */
async function slugDirs(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    const v = JSON.parse(await readFile(join(root, 'projects.json'), 'utf8')) as { projects?: Record<string, unknown> };
    for (const [dir, slug] of Object.entries(v.projects ?? {})) if (typeof slug === 'string') out.set(slug, dir);
  } catch {
    // no registry yet: folders stay unknown
  }
  return out;
}

const slugOf = (path: string): string => basename(dirname(dirname(path)));
const rootOf = (path: string): string => dirname(dirname(dirname(dirname(path))));

export async function readGeminiTimeline(path: string): Promise<Timeline> {
  const buf = await readFile(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
    throw e;
  });
  return geminiTimeline(buf, path, (await slugDirs(rootOf(path))).get(slugOf(path)) ?? null);
}

const memo = new FileMemo<Timeline>();

/** Every session once: several files may carry one id, and the newest `lastUpdated` wins. */
export async function listGeminiSessions(opts: { root: string; project?: string; now?: number }): Promise<SessionSummary[]> {
  const now = opts.now ?? Date.now();
  const dirs = await slugDirs(opts.root);
  const best = new Map<string, { f: AgentFile; t: Timeline }>();
  for (const f of await listGeminiFiles(opts.root)) {
    if (f.size === 0) continue;
    const t = await memo.read(f, (buf) => geminiTimeline(buf, f.path, dirs.get(slugOf(f.path)) ?? null));
    if (!t) continue;
    const prev = best.get(t.session.id);
    if (!prev || (t.session.lastTimestamp ?? '') > (prev.t.session.lastTimestamp ?? '')) best.set(t.session.id, { f, t });
  }
  const out: SessionSummary[] = [];
  for (const { f, t } of best.values()) {
    if (!inProject(t, opts.project)) continue;
    out.push(summaryOfTimeline('gemini', t, f, { now, liveWindowMs: LIVE_WINDOW_MS }));
  }
  return out.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
}

/** A Gemini session by id or id prefix: the file of that id with the newest `lastUpdated`. */
export async function findGeminiSession(ref: string, root: string): Promise<string | null> {
  const all = await listGeminiSessions({ root });
  const exact = all.find((s) => s.id === ref);
  if (exact) return exact.transcriptPath;
  const hits = all.filter((s) => s.id.startsWith(ref));
  if (hits.length > 1) throw new RewindError('USAGE', `"${ref}" matches several Gemini CLI sessions: give more of the id`);
  return hits[0]?.transcriptPath ?? null;
}
