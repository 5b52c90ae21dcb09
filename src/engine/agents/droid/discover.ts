import { inProject, summaryOfTimeline } from '../summary-of-timeline.js';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { SessionSummary, Timeline } from '../../../shared/session-schema.js';
import { LIVE_WINDOW_MS } from '../live-window.js';
import { RewindError } from '../../errors.js';
import { FileMemo, listFiles, matchRef, type AgentFile } from '../session-files.js';
import { droidTimeline } from './parse.js';

export const droidSessionsDir = (root: string): string => join(root, 'sessions');

const isSessionFile = (name: string): boolean => name.endsWith('.jsonl') && !name.startsWith('.');

export async function listDroidFiles(root: string): Promise<AgentFile[]> {
  return listFiles(droidSessionsDir(root), 1, isSessionFile);
}

async function readSettings(path: string): Promise<Record<string, unknown> | null> {
  try {
    const v = JSON.parse(await readFile(path.replace(/\.jsonl$/, '.settings.json'), 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A Droid session's timeline, with the model and tokens from its `.settings.json`. */
export async function readDroidTimeline(path: string): Promise<Timeline> {
  const buf = await readFile(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
    throw e;
  });
  return droidTimeline(buf, path, await readSettings(path));
}

const memo = new FileMemo<{ t: Timeline; forkOf: string | null } | null>();

/** Droid sessions, newest first; each file is read whole once and remembered while unchanged. */
export async function listDroidSessions(opts: { root: string; project?: string; now?: number }): Promise<SessionSummary[]> {
  const now = opts.now ?? Date.now();
  const out: SessionSummary[] = [];
  for (const f of await listDroidFiles(opts.root)) {
    if (f.size === 0) continue;
    const m = await memo.read(f, (buf) => {
      const t = droidTimeline(buf, f.path, null);
      const head = buf.subarray(0, Math.max(0, buf.indexOf(0x0a))).toString('utf8');
      let h: { type?: unknown; parent?: unknown };
      try {
        h = JSON.parse(head) as typeof h;
      } catch {
        return null;
      }
      return h.type === 'session_start' ? { t, forkOf: typeof h.parent === 'string' ? h.parent : null } : null;
    });
    if (!m) continue;
    const { t } = m;
    if (!inProject(t, opts.project)) continue;
    out.push(summaryOfTimeline('droid', t, f, { now, liveWindowMs: LIVE_WINDOW_MS, forkOf: m.forkOf }));
  }
  return out;
}

/** A Droid session by id, id prefix or path. */
export async function findDroidSession(ref: string, root: string): Promise<string | null> {
  const hit = matchRef(await listDroidFiles(root), ref, (f) => basename(f.path, '.jsonl'));
  if (hit === 'ambiguous') throw new RewindError('USAGE', `"${ref}" matches several Droid sessions: give more of the id`);
  return hit?.path ?? null;
}
