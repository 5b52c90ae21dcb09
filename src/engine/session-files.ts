import type { Agent, SessionSummary, Timeline } from '../shared/session-schema.js';
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
  if (first && isRolloutHead(first)) return 'codex';
  const { adapterOfFile } = await import('./agents/registry.js');
  return (await adapterOfFile(path)).id;
}

/** The timeline of a session file, whichever agent wrote it. */
export async function timelineOfFile(path: string): Promise<Timeline> {
  const agent = await agentOfFile(path);
  if (agent === 'codex') {
    const { parseRollout } = await import('./agents/codex/rollout.js');
    return parseRollout(path);
  }
  if (agent !== 'claude') {
    const { adapterFor } = await import('./agents/registry.js');
    return adapterFor(agent).timeline(path);
  }
  return toTimeline(await parseTranscriptFile(path));
}

/** Sessions of the agents beyond Claude Code and Codex (Droid, Qwen, Gemini), each under its root from env. */
export async function otherAgentSessions(env: NodeJS.ProcessEnv, project?: string): Promise<SessionSummary[]> {
  const { ALL_ADAPTERS } = await import('./agents/registry.js');
  const out: SessionSummary[] = [];
  for (const a of ALL_ADAPTERS) {
    if (a.id === 'claude' || a.id === 'codex') continue;
    out.push(...(await a.summarize(a.root(env), { project }).catch(() => [])));
  }
  return out;
}

/** A session of the other agents by id or id prefix, else null. */
async function findOtherAgentSession(ref: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const { ALL_ADAPTERS } = await import('./agents/registry.js');
  for (const a of ALL_ADAPTERS) {
    if (a.id === 'claude' || a.id === 'codex') continue;
    const hit = await a.find(ref, a.root(env));
    if (hit) return hit;
  }
  return null;
}

/** A session by path, id or id prefix: Claude Code's first, then Codex's (when `codexHome` is given). */
export async function findSessionFile(ref: string, claudeRoot: string, codexHome: string | null, env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    return (await findSession(ref, claudeRoot)).path;
  } catch (e) {
    if (!codexHome || !isRewindError(e) || e.code !== 'NOT_FOUND' || ref.includes('/') || ref.includes('\\')) throw e;
    const codex = await findCodexSession(ref, codexHome);
    if (codex) return codex;
    const other = env ? await findOtherAgentSession(ref, env) : null;
    if (other) return other;
    throw new RewindError('NOT_FOUND', `no session "${ref}" under ${claudeRoot}/projects or ${codexHome}/sessions`);
  }
}

/** A session by path, id or id prefix; with no ref, the newest session of `cwd`. */
export async function resolveSessionFile(ref: string | undefined, opts: { cwd: string; env: NodeJS.ProcessEnv; claudeRoot?: string }): Promise<string | null> {
  const root = opts.claudeRoot ?? claudeConfigRoot(opts.env);
  if (ref) return findSessionFile(ref, root, codexHome(opts.env), opts.env);
  const claude = await newestSessionFor(opts.cwd, root).catch(() => null);
  if (claude) return claude.path;
  const codex = (await listCodexSessions({ home: codexHome(opts.env), project: opts.cwd }))[0];
  if (codex) return codex.transcriptPath;
  const others = (await otherAgentSessions(opts.env, opts.cwd)).sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  return others[0]?.transcriptPath ?? null;
}
