import { RewindError } from '../../engine/errors.js';
import { resolveProjectRoot } from '../../engine/sessions/resolve-transcript.js';
import { undoById, undoLatest } from '../../engine/journal/undo.js';
import type { CliIO } from '../io.js';

export interface UndoArgs {
  /** A history entry's id (or a prefix of 6+ characters): undo that one, not only the newest. */
  id?: string;
  dryRun: boolean;
  json: boolean;
  force: boolean;
  project?: string;
  claudeDir?: string;
}

export async function undoCommand(args: UndoArgs, io: CliIO): Promise<number> {
  const root = await resolveProjectRoot({ project: args.project, cwd: io.cwd, env: io.env });
  if (!root) throw new RewindError('NOTHING_TO_UNDO', `no .agent/rewind/ in ${io.cwd} or above: nothing to undo (pass --project DIR)`);
  // Record paths are trusted inside each agent's root (a --claude-dir one as well as the usual one).
  const { rootsFor } = await import('../../engine/agents/registry.js');
  const agentRoots = [...rootsFor(io.env).map((r) => r.root), ...(args.claudeDir ? rootsFor(io.env, { claude: args.claudeDir }).map((r) => r.root) : [])];
  const opts = { dryRun: args.dryRun, force: args.force, agentRoots };
  const r = args.id ? await undoById(root, args.id, opts) : await undoLatest(root, opts);
  if (args.json) {
    io.out(JSON.stringify({ dryRun: r.dryRun, kind: r.undone.kind, id: r.undone.id, summary: r.summary, keptAt: r.keptAt }));
    return 0;
  }
  io.out(r.dryRun ? `Dry run: ${r.summary}` : r.summary);
  if (r.keptAt) io.err(`Kept a copy at ${r.keptAt}`);
  return 0;
}
