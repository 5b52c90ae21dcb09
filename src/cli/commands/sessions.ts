import { resolve } from 'node:path';
import { AGENT_PRIMARY, adapterFor, rootsFor } from '../../engine/agents/registry.js';
import type { CliIO } from '../io.js';
import { relTime, tildify, truncate } from '../io.js';

export interface SessionsArgs {
  project?: string;
  json: boolean;
  claudeDir?: string;
}

export async function sessionsCommand(args: SessionsArgs, io: CliIO): Promise<number> {
  const roots = rootsFor(io.env, { [AGENT_PRIMARY]: args.claudeDir });
  const project = args.project ? resolve(io.cwd, args.project) : undefined;
  // Every session with its counts, from the metadata index (only what changed since is read).
  const { freshIndex } = await import('./search.js');
  const { withJournals } = await import('../../engine/journal/session-annotations.js');
  const ix = await freshIndex(io, args.claudeDir);
  const sessions = await withJournals(await ix.recovering(() => ix.summaries({ project })));
  for (const n of ix.notices.splice(0)) io.err(`rewind-app: ${n}`);
  // A missing root is only an error when no agent has sessions to show.
  if (sessions.length === 0) {
    // Says why when the first agent's folder is missing (and no other agent has sessions).
    await roots[0]!.adapter.summarize(roots[0]!.root, { project });
  }
  const root = roots[0]!.root;
  if (args.json) {
    io.out(JSON.stringify({ root, sessions }, null, 2));
    return 0;
  }
  if (sessions.length === 0) {
    io.err(`No agent sessions under ${roots.map((r) => r.root).join(' or ')}${args.project ? ` for ${args.project}` : ''}.`);
    return 0;
  }
  for (const s of sessions) {
    const live = s.live ? '●' : ' ';
    // The live path's prompts when the session was parsed (as the window says), else every prompt in the file.
    const count = s.counts ? String(s.counts.livePrompts) : s.promptCount === null ? '?' : String(s.promptCount);
    const fork = s.forkOf ? `  (fork of ${s.forkOf.slice(0, 8)})` : '';
    // The first agent is the default: only the others are tagged.
    const agent = s.agent === roots[0]!.adapter.id ? '' : `  [${adapterFor(s.agent).badge}]`;
    io.out(`${live} ${s.id}  ${relTime(s.lastActivity).padStart(8)}  ${count.padStart(4)} prompts  ${tildify(s.cwd, io.env)}  ${truncate(s.title, 60)}${agent}${fork}`);
  }
  return 0;
}
