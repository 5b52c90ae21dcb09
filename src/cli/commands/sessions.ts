import { join, resolve } from 'node:path';
import { PromptCountCache, defaultCacheDir, listSessions } from '../../engine/claude/discover.js';
import { claudeConfigRoot } from '../../engine/claude/paths.js';
import type { CliIO } from '../io.js';
import { relTime, tildify, truncate } from '../io.js';

export interface SessionsArgs {
  project?: string;
  json: boolean;
  claudeDir?: string;
}

export async function sessionsCommand(args: SessionsArgs, io: CliIO): Promise<number> {
  const root = args.claudeDir ?? claudeConfigRoot(io.env);
  const cache = await PromptCountCache.load(join(defaultCacheDir(io.env), 'prompt-counts.json'));
  const { withJournals } = await import('../../engine/session-journals.js');
  const sessions = await withJournals(await listSessions({ root, project: args.project ? resolve(io.cwd, args.project) : undefined, cache }));
  if (args.json) {
    io.out(JSON.stringify({ root, sessions }, null, 2));
    return 0;
  }
  if (sessions.length === 0) {
    io.err(`No Claude Code sessions under ${root}${args.project ? ` for ${args.project}` : ''}.`);
    return 0;
  }
  for (const s of sessions) {
    const live = s.live ? '●' : ' ';
    const count = s.promptCount === null ? '?' : String(s.promptCount);
    const fork = s.forkOf ? `  (fork of ${s.forkOf.slice(0, 8)})` : '';
    io.out(`${live} ${s.id}  ${relTime(s.lastActivity).padStart(8)}  ${count.padStart(4)} prompts  ${tildify(s.cwd, io.env)}  ${truncate(s.title, 60)}${fork}`);
  }
  return 0;
}
