import { takeCheckpoint } from '../../engine/store/checkpoint.js';
import { listCheckpoints } from '../../engine/store/manifest.js';
import { projectRootOrCwd } from '../../engine/sessions/resolve-transcript.js';
import type { CliIO } from '../io.js';
import { relTime, truncate } from '../io.js';

export async function checkpointCommand(args: { label?: string; project?: string; json: boolean }, io: CliIO): Promise<number> {
  const root = await projectRootOrCwd({ project: args.project, cwd: io.cwd, env: io.env });
  const r = await takeCheckpoint({ projectRoot: root, trigger: 'manual', label: args.label ?? null });
  const m = r.manifest;
  if (args.json) io.out(JSON.stringify({ id: m.id, projectRoot: root, files: m.entries.length, hashed: r.hashed, skipped: m.skipped, ms: Math.round(r.ms) }));
  else {
    io.out(`Checkpoint ${m.id}${m.label ? ` "${m.label}"` : ''}: ${m.entries.filter((e) => e[1] !== 'd').length} files (${r.hashed} read)`);
    for (const s of m.skipped) io.err(`skipped ${s.path}: ${s.reason}`);
  }
  return 0;
}

export async function checkpointsCommand(args: { project?: string; json: boolean }, io: CliIO): Promise<number> {
  const root = await projectRootOrCwd({ project: args.project, cwd: io.cwd, env: io.env });
  const list = await listCheckpoints(root);
  const { backgroundRunning, inProgressText } = await import('../../engine/store/background-checkpoint.js');
  const running = await backgroundRunning(root);
  const inProgress = running ? inProgressText(running) : null;
  if (args.json) {
    io.out(JSON.stringify({ projectRoot: root, checkpoints: list, inProgress }));
    return 0;
  }
  if (inProgress) io.err(`${root}: ${inProgress}`);
  if (list.length === 0) {
    if (inProgress) return 0;
    io.err(`No checkpoints in ${root}/.agent/rewind (install the hooks: rewind-app hooks install, or take one: rewind-app checkpoint)`);
    return 0;
  }
  for (const c of list) {
    const ch = c.changed;
    const delta = `+${ch.added.length} ~${ch.modified.length} -${ch.deleted.length}`;
    const prompt = c.transcript?.prompt_uuid ?? c.transcript?.prompt_id;
    const what = c.label ?? (prompt ? `before prompt ${prompt.slice(0, 8)}${c.transcript?.agent ? ` (${c.transcript.agent})` : ''}` : c.trigger);
    io.out(`${c.id}  ${relTime(c.time).padStart(8)}  ${c.trigger.padEnd(11)} ${delta.padEnd(12)} ${truncate(what, 60)}`);
    for (const s of c.skippedPaths ?? []) io.out(`    skipped ${s.path}: ${s.reason}`);
    if (c.background?.note) io.out(`    read in the background: ${c.background.note}`);
  }
  return 0;
}
