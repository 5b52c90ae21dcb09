import { inProject, summaryOfTimeline } from '../summary-of-timeline.js';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { SessionSummary, Timeline } from '../../../shared/session-schema.js';
import { LIVE_WINDOW_MS } from '../live-window.js';
import { RewindError } from '../../errors.js';
import { FileMemo, listFiles, matchRef, type AgentFile } from '../session-files.js';
import { qwenTimeline } from './parse.js';
import { join } from 'node:path';

/** `<root>/projects/<project>/chats/<sessionId>.jsonl`. */
export async function listQwenFiles(root: string): Promise<AgentFile[]> {
  return listFiles(join(root, 'projects'), 2, (name, p) => name.endsWith('.jsonl') && basename(dirname(p)) === 'chats' && !name.startsWith('.'));
}

export async function readQwenTimeline(path: string): Promise<Timeline> {
  const buf = await readFile(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
    throw e;
  });
  return qwenTimeline(buf, path);
}

const memo = new FileMemo<Timeline>();

export async function listQwenSessions(opts: { root: string; project?: string; now?: number }): Promise<SessionSummary[]> {
  const now = opts.now ?? Date.now();
  const out: SessionSummary[] = [];
  for (const f of await listQwenFiles(opts.root)) {
    if (f.size === 0) continue;
    const t = await memo.read(f, (buf) => qwenTimeline(buf, f.path));
    if (!t) continue;
    if (!inProject(t, opts.project)) continue;
    out.push(summaryOfTimeline('qwen', t, f, { now, liveWindowMs: LIVE_WINDOW_MS, version: t.session.version }));
  }
  return out;
}

export async function findQwenSession(ref: string, root: string): Promise<string | null> {
  const hit = matchRef(await listQwenFiles(root), ref, (f) => basename(f.path, '.jsonl'));
  if (hit === 'ambiguous') throw new RewindError('USAGE', `"${ref}" matches several Qwen Code sessions: give more of the id`);
  return hit?.path ?? null;
}
