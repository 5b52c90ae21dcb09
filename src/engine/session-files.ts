import type { Agent, Timeline } from '../shared/session-schema.js';
import { findSession, newestSessionFor } from './agents/claude/discover.js';
import { claudeConfigRoot } from './agents/claude/paths.js';
import { parseTranscriptFile } from './agents/claude/parse-transcript.js';
import { toTimeline } from './agents/claude/timeline.js';
import { codexHome, findCodexSession, listCodexSessions } from './agents/codex/discover.js';
import { isRolloutHead } from './agents/codex/rollout.js';
import { isRewindError, RewindError } from './errors.js';
import { readFirstLine } from './io/first-line.js';

/** Which agent wrote a session file, from its first line (a Codex rollout opens with `session_meta`). */
export async function agentOfFile(path: string): Promise<Agent> {
  const first = await readFirstLine(path).catch(() => null);
  return first && isRolloutHead(first) ? 'codex' : 'claude';
}

/** The timeline of a session file, whichever agent wrote it. */
export async function timelineOfFile(path: string): Promise<Timeline> {
  if ((await agentOfFile(path)) === 'codex') {
    const { parseRollout } = await import('./agents/codex/rollout.js');
    return parseRollout(path);
  }
  return toTimeline(await parseTranscriptFile(path));
}

/** A session by path, id or id prefix: Claude Code's first, then Codex's (when `codexHome` is given). */
export async function findSessionFile(ref: string, claudeRoot: string, codexHome: string | null): Promise<string> {
  try {
    return (await findSession(ref, claudeRoot)).path;
  } catch (e) {
    if (!codexHome || !isRewindError(e) || e.code !== 'NOT_FOUND' || ref.includes('/') || ref.includes('\\')) throw e;
    const codex = await findCodexSession(ref, codexHome);
    if (codex) return codex;
    throw new RewindError('NOT_FOUND', `no session "${ref}" under ${claudeRoot}/projects or ${codexHome}/sessions`);
  }
}

/** A session by path, id or id prefix; with no ref, the newest session of `cwd`. */
export async function resolveSessionFile(ref: string | undefined, opts: { cwd: string; env: NodeJS.ProcessEnv; claudeRoot?: string }): Promise<string | null> {
  const root = opts.claudeRoot ?? claudeConfigRoot(opts.env);
  if (ref) return findSessionFile(ref, root, codexHome(opts.env));
  const claude = await newestSessionFor(opts.cwd, root).catch(() => null);
  if (claude) return claude.path;
  return (await listCodexSessions({ home: codexHome(opts.env), project: opts.cwd }))[0]?.transcriptPath ?? null;
}
