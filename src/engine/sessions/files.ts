import type { Agent, Timeline } from '../../shared/session-schema.js';
import type { AgentAdapter } from '../agents/adapter.js';
import { adapterOfFile, findSession, rootsFor, type AgentRoots } from '../agents/registry.js';

/** Which agent wrote a session file (each adapter judges its path and first line). */
export async function agentOfFile(path: string): Promise<Agent> {
  return (await adapterOfFile(path)).id;
}

/** The timeline of a session file, whichever agent wrote it. */
export async function timelineOfFile(path: string): Promise<Timeline> {
  const adapter = await adapterOfFile(path);
  const t = await adapter.timeline(path);
  return adapter.rewind ? t : { ...t, session: { ...t.session, readOnly: `${adapter.displayName} sessions are shown, not rewound, for now` } };
}

/** A session by path, id or id prefix; with no ref, the newest session of `cwd` (agents in registry order). */
export async function resolveSessionFile(ref: string | undefined, opts: { cwd: string; env: NodeJS.ProcessEnv; roots?: AgentRoots }): Promise<{ adapter: AgentAdapter; path: string } | null> {
  return findSession(ref, rootsFor(opts.env, opts.roots), opts.cwd);
}
