import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { SessionSummary, Timeline } from '../../../shared/session-schema.js';
import { LIVE_WINDOW_MS } from '../live-window.js';
import { RewindError } from '../../errors.js';
import { FileMemo, listFiles, matchRef, type AgentFile } from '../session-files.js';
import { inProject, summaryOfTimeline } from '../summary-of-timeline.js';
import { copilotTimeline, idOfPath } from './parse.js';

/** Where Copilot keeps its sessions: `<root>/session-state/<id>/events.jsonl`. */
export const sessionStateDir = (root: string): string => join(root, 'session-state');

/** `<root>/session-state/<id>/events.jsonl`, newest first (its lock folders hold no events file). */
export async function listCopilotFiles(root: string): Promise<AgentFile[]> {
  return listFiles(sessionStateDir(root), 1, (name, p) => name === 'events.jsonl' && !basename(dirname(p)).startsWith('.'));
}

export async function readCopilotTimeline(path: string): Promise<Timeline> {
  const buf = await readFile(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
    throw e;
  });
  return copilotTimeline(buf, path);
}

const memo = new FileMemo<Timeline>();

/** Copilot sessions, newest first; each file read whole once and remembered while unchanged. */
export async function listCopilotSessions(opts: { root: string; project?: string; now?: number }): Promise<SessionSummary[]> {
  const now = opts.now ?? Date.now();
  const out: SessionSummary[] = [];
  for (const f of await listCopilotFiles(opts.root)) {
    if (f.size === 0) continue;
    const t = await memo.read(f, (buf) => copilotTimeline(buf, f.path));
    if (!t || !inProject(t, opts.project)) continue;
    out.push(summaryOfTimeline('copilot', t, f, { now, liveWindowMs: LIVE_WINDOW_MS, version: t.session.version }));
  }
  return out;
}

/** A Copilot session by id or id prefix (its folder's name). */
export async function findCopilotSession(ref: string, root: string): Promise<string | null> {
  const hit = matchRef(await listCopilotFiles(root), ref, (f) => idOfPath(f.path));
  if (hit === 'ambiguous') throw new RewindError('USAGE', `"${ref}" matches several Copilot sessions: give more of the id`);
  return hit?.path ?? null;
}
