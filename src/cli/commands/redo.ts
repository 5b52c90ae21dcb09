import { RewindError } from '../../engine/errors.js';
import { redo } from '../../engine/journal/redo.js';
import { resolveProjectRoot } from '../../engine/sessions/resolve-transcript.js';
import type { CliIO } from '../io.js';

export interface RedoArgs {
  dryRun: boolean;
  json: boolean;
  force: boolean;
  project?: string;
  claudeDir?: string;
}

export async function redoCommand(args: RedoArgs, io: CliIO): Promise<number> {
  const root = await resolveProjectRoot({ project: args.project, cwd: io.cwd, env: io.env });
  if (!root) throw new RewindError('NOTHING_TO_UNDO', `no .agent/rewind/ in ${io.cwd} or above: nothing to redo (pass --project DIR)`);
  const { rootsFor } = await import('../../engine/agents/registry.js');
  const agentRoots = [...rootsFor(io.env).map((r) => r.root), ...(args.claudeDir ? rootsFor(io.env, { claude: args.claudeDir }).map((r) => r.root) : [])];
  const r = await redo(root, { dryRun: args.dryRun, force: args.force, agentRoots });
  if (args.json) {
    io.out(JSON.stringify({ dryRun: r.dryRun, kind: r.redone.kind, id: r.redone.id, summary: r.summary, parts: r.parts.length }));
    return 0;
  }
  io.out(r.dryRun ? `Dry run: ${r.summary}` : r.summary);
  return 0;
}
