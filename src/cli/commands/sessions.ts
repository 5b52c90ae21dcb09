import { resolve } from 'node:path';
import { defaultCacheDir } from '../../engine/agents/claude/discover.js';
import { AGENT_PRIMARY, adapterFor, rootsFor } from '../../engine/agents/registry.js';
import { isRewindError } from '../../engine/errors.js';
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
  const cacheDir = defaultCacheDir(io.env);
  let missing: unknown = null;
  const lists = await Promise.all(
    roots.map(({ adapter, root }) =>
      adapter.summarize(root, { project, cacheDir }).catch((e: unknown) => {
        if (!isRewindError(e) || e.code !== 'NOT_FOUND') throw e;
        missing ??= e;
        return [];
      }),
    ),
  );
  const sessions = lists.flat().sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  // A missing root is only an error when no other agent has sessions to show.
  if (missing && sessions.length === 0) throw missing;
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
    const count = s.promptCount === null ? '?' : String(s.promptCount);
    const fork = s.forkOf ? `  (fork of ${s.forkOf.slice(0, 8)})` : '';
    // The first agent is the default: only the others are tagged.
    const agent = s.agent === roots[0]!.adapter.id ? '' : `  [${adapterFor(s.agent).badge}]`;
    io.out(`${live} ${s.id}  ${relTime(s.lastActivity).padStart(8)}  ${count.padStart(4)} prompts  ${tildify(s.cwd, io.env)}  ${truncate(s.title, 60)}${agent}${fork}`);
  }
  return 0;
}
