import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { SessionSummary, Timeline } from '../../../shared/session-schema.js';
import { LIVE_WINDOW_MS } from '../claude/discover.js';
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
    let t = memo.get(f);
    if (!t) {
      const buf = await readFile(f.path).catch(() => null);
      if (!buf) continue;
      t = qwenTimeline(buf, f.path);
      memo.set(f, t);
    }
    if (opts.project && (!t.session.cwd || resolve(t.session.cwd) !== resolve(opts.project))) continue;
    out.push({
      id: t.session.id,
      agent: 'qwen',
      title: t.session.title,
      cwd: t.session.cwd,
      projectDir: dirname(f.path),
      transcriptPath: f.path,
      promptCount: t.prompts.length,
      firstPrompt: t.prompts[0]?.text ?? null,
      lastPrompt: t.prompts[t.prompts.length - 1]?.text ?? null,
      createdAt: t.session.firstTimestamp,
      lastActivity: new Date(f.mtimeMs).toISOString(),
      sizeBytes: f.size,
      version: t.session.version,
      live: now - f.mtimeMs < LIVE_WINDOW_MS,
      forkOf: null,
    });
  }
  return out;
}

export async function findQwenSession(ref: string, root: string): Promise<string | null> {
  const hit = matchRef(await listQwenFiles(root), ref, (f) => basename(f.path, '.jsonl'));
  if (hit === 'ambiguous') throw new RewindError('USAGE', `"${ref}" matches several Qwen Code sessions: give more of the id`);
  return hit?.path ?? null;
}
