import { resolve } from 'node:path';
import { claudeConfigRoot, claudeRootFor } from '../../engine/agents/claude/paths.js';
import { parseTranscriptFile } from '../../engine/agents/claude/parse-transcript.js';
import type { SessionModel } from '../../engine/agents/claude/model.js';
import { RewindError } from '../../engine/errors.js';
import { resolveProjectRoot, resolveTranscript } from '../../engine/resolve-transcript.js';
import { PROMPT_UUID, resolveRestoreTarget, restore, type RestoreResult, type RestoreSource } from '../../engine/store/restore.js';
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
  if (args.source && args.source !== 'rewind' && args.source !== 'claude') throw new RewindError('USAGE', `--source is rewind or claude (got "${args.source}")`);
  const source = args.source as RestoreSource | undefined;
  let session: SessionModel | null = null;
  let root = await resolveProjectRoot({ project: args.project, cwd: io.cwd, env: io.env });
  if (PROMPT_UUID.test(args.ref) || source === 'claude') {
    const t = await resolveTranscript({ transcript: args.transcript, project: args.project, cwd: io.cwd, env: io.env, claudeRoot: args.claudeDir }).catch((e) => {
      if (source === 'claude') throw e;
      return null;
    });
    if (t) {
      session = await parseTranscriptFile(t.path);
      root ??= session.cwd;
    }
  }
  root ??= resolve(io.cwd);
  const target = await resolveRestoreTarget({ projectRoot: root, ref: args.ref, source, session });
  io.err(`Source: ${target.note}`);
  const claudeRoot = args.claudeDir ?? claudeRootFor(session?.transcriptPath, claudeConfigRoot(io.env));
  const r = await restore(root, target, { session, claudeRoot, dryRun: args.dryRun, force: args.force });
  printRestore(r, args, io);
  return 0;
}

export function printRestore(r: RestoreResult, args: { json: boolean; dryRun: boolean; undoHint?: boolean }, io: CliIO): void {
  const { plan, diffs } = r.preview;
  if (args.json) {
    io.out(
      JSON.stringify({
        source: r.preview.target.source,
        checkpointId: r.preview.target.checkpoint?.id ?? null,
        promptUuid: r.preview.target.promptUuid,
        dryRun: args.dryRun,
        changes: plan.changes.map((c) => ({ path: c.path, action: c.action, conflict: c.conflict })),
        unchanged: plan.unchanged,
        untouched: plan.untouched,
        skipped: r.preview.skipped,
        outside: r.preview.outside,
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
  for (const s of r.preview.skipped) io.err(`untouched (too large to be in the checkpoint): ${s.path}`);
  for (const o of r.preview.outside) io.err(`untouched (outside the project): ${o}`);
  if (plan.untouched.length) io.err(untouchedSentence(plan.untouched));
  if (args.dryRun) io.out(`\nDry run: ${plural(plan.changes.length, 'file')} would change, nothing written`);
  else if (r.applied) io.out(`\n${restoredSummary(r.applied)}${args.undoHint === false ? '' : '. Undo with: rewind-app undo'}`);
}
