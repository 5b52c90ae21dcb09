import { resolve } from 'node:path';
import { RewindError } from '../../engine/errors.js';
import { resolveProjectRoot, resolveTranscript } from '../../engine/sessions/resolve-transcript.js';
import { PROMPT_UUID, resolveRestoreTarget, restore, type RestoreResult, type RestoreSession } from '../../engine/store/restore.js';
import { listCheckpointIds } from '../../engine/store/manifest.js';
import { parseRestoreSource, readRestoreSession } from '../../engine/store/restore-session.js';
import { plural, restoredSummary, untouchedSentence } from '../../shared/wording.js';
import type { CliIO } from '../io.js';

export interface RestoreArgs {
  ref?: string;
  source?: string;
  dryRun: boolean;
  json: boolean;
  force: boolean;
  project?: string;
  transcript?: string;
  claudeDir?: string;
}

export async function restoreCommand(args: RestoreArgs, io: CliIO): Promise<number> {
  if (!args.ref) throw new RewindError('USAGE', 'restore needs a checkpoint id, a prompt uuid or @n');
  const source = await parseRestoreSource(args.source);
  if (source === null) throw new RewindError('USAGE', `--source is rewind, agent or the session's agent id (got "${args.source}")`);
  let session: RestoreSession | null = null;
  let root = await resolveProjectRoot({ project: args.project, cwd: io.cwd, env: io.env });
  // A prompt id (a uuid, or an agent's own form like Codex's) needs the session; a checkpoint id or @n does not.
  const checkpointRef = /^@\d+$/.test(args.ref) || (root !== null && (await listCheckpointIds(root).catch(() => [])).some((id) => id.startsWith(args.ref!)));
  if (PROMPT_UUID.test(args.ref) || source === 'agent' || !checkpointRef) {
    const t = await resolveTranscript({ transcript: args.transcript, project: args.project, cwd: io.cwd, env: io.env, claudeRoot: args.claudeDir }).catch((e) => {
      if (source === 'agent') throw e;
      return null;
    });
    if (t) {
      const s = await readRestoreSession(t.path);
      if (args.source && args.source !== 'agent' && args.source !== 'rewind' && args.source !== s.agent) throw new RewindError('USAGE', `--source ${args.source}: this session is ${s.agent}'s (use --source ${s.agent} or agent)`);
      session = s;
      root ??= s.cwd;
    }
  }
  root ??= resolve(io.cwd);
  // `--claude-dir` is the primary agent's root only.
  const { AGENT_PRIMARY } = await import('../../engine/agents/registry.js');
  const agentRoot = session?.agent === AGENT_PRIMARY ? args.claudeDir : undefined;
  const target = await resolveRestoreTarget({ projectRoot: root, ref: args.ref, source, session, agentRoot });
  io.err(`Source: ${target.note}`);
  const r = await restore(root, target, { agentRoot, dryRun: args.dryRun, force: args.force });
  if (args.dryRun) {
    // An agent open in the project: allowed while idle (a busy one refuses the write), but said.
    const { agentOpenIn } = await import('../../engine/agents/open-session.js');
    const { rootsFor } = await import('../../engine/agents/registry.js');
    const { restoreOpenNote } = await import('../../shared/wording.js');
    const hit = await agentOpenIn(root, rootsFor(io.env, { [AGENT_PRIMARY]: args.claudeDir }), target.transcriptPath).catch(() => null);
    if (hit) io.err(`Note: ${restoreOpenNote(hit.adapter.displayName, hit.open)}`);
  }
  printRestore(r, args, io);
  return 0;
}

export function printRestore(r: RestoreResult, args: { json: boolean; dryRun: boolean; undoHint?: boolean }, io: CliIO): void {
  const { plan, diffs } = r.preview;
  if (args.json) {
    io.out(
      JSON.stringify({
        source: r.preview.target.source === 'agent' ? r.preview.target.agent : 'rewind',
        checkpointId: r.preview.target.checkpoint?.id ?? null,
        promptUuid: r.preview.target.promptUuid,
        dryRun: args.dryRun,
        changes: plan.changes.map((c) => ({ path: c.path, action: c.action, conflict: c.conflict })),
        unchanged: plan.unchanged,
        untouched: plan.untouched,
        skipped: r.preview.skipped,
        outside: r.preview.outside,
        unknown: r.preview.unknown ?? [],
        diffs,
        applied: r.applied,
      }),
    );
    return;
  }
  const badge = { create: 'A', modify: 'M', delete: 'D', unchanged: ' ' } as const;
  if (plan.changes.length === 0) io.out('Nothing to restore: the files already match.');
  for (const c of plan.changes) io.out(`${badge[c.action]} ${c.path}${c.conflict ? `   ! ${c.conflict}` : ''}`);
  for (const d of diffs) {
    if (d.binary) io.out(`\n${d.path}: binary, ${d.sizeBefore ?? 0} -> ${d.sizeAfter ?? 0} bytes`);
    else if (d.patch) io.out(`\n${d.patch.trimEnd()}`);
    else if (d.note) io.out(`\n${d.path}: ${d.note}`);
  }
  for (const s of r.preview.skipped) io.err(`untouched (not in the checkpoint: ${s.reason}): ${s.path}`);
  for (const o of r.preview.outside) io.err(`untouched (outside the project): ${o}`);
  for (const u of r.preview.unknown ?? []) io.err(r.preview.target.source === 'agent' ? `not known to the agent's store: ${u}` : `not vouched for: ${u}`);
  if (plan.untouched.length) io.err(untouchedSentence(plan.untouched));
  if (args.dryRun) io.out(`\nDry run: ${plural(plan.changes.length, 'file')} would change, nothing written`);
  else if (r.applied) io.out(`\n${restoredSummary(r.applied)}${args.undoHint === false ? '' : '. Undo with: rewind-app undo'}`);
}
