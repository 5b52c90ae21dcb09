import { join, resolve } from 'node:path';
import { PromptCountCache, defaultCacheDir, listSessions } from '../../engine/claude/discover.js';
import { claudeConfigRoot } from '../../engine/claude/paths.js';
import { isRewindError } from '../../engine/errors.js';
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
  const project = args.project ? resolve(io.cwd, args.project) : undefined;
  const { codexHome, listCodexSessions } = await import('../../engine/codex/discover.js');
  let missing: unknown = null;
  const claude = await listSessions({ root, project, cache }).catch((e: unknown) => {
    if (!isRewindError(e) || e.code !== 'NOT_FOUND') throw e;
    missing = e;
    return null;
  });
  const codex = await listCodexSessions({ home: codexHome(io.env), project });
  // No Claude config dir is only an error when there are no Codex sessions to show either.
  if (missing && codex.length === 0) throw missing;
  const sessions = [...(await withJournals(claude ?? [])), ...codex].sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  if (args.json) {
    io.out(JSON.stringify({ root, sessions }, null, 2));
    return 0;
  }
  if (sessions.length === 0) {
    io.err(`No Claude Code or Codex sessions under ${root} or ${codexHome(io.env)}${args.project ? ` for ${args.project}` : ''}.`);
    return 0;
  }
  for (const s of sessions) {
    const live = s.live ? '●' : ' ';
    // The live path's prompts when the session was parsed (as the window says), else every prompt in the file.
    const count = s.counts ? String(s.counts.livePrompts) : s.promptCount === null ? '?' : String(s.promptCount);
    const fork = s.forkOf ? `  (fork of ${s.forkOf.slice(0, 8)})` : '';
    const agent = s.agent === 'codex' ? '  [Codex]' : '';
    io.out(`${live} ${s.id}  ${relTime(s.lastActivity).padStart(8)}  ${count.padStart(4)} prompts  ${tildify(s.cwd, io.env)}  ${truncate(s.title, 60)}${agent}${fork}`);
  }
  return 0;
}
