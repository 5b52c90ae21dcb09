import { createTwoFilesPatch } from 'diff';
import { RewindError } from '../../engine/errors.js';
import { projectRootOrCwd } from '../../engine/sessions/resolve-transcript.js';
import { revert, sessionForPrompt, type RevertResult, type Take } from '../../engine/store/revert.js';
import { TAKES } from '../../engine/store/revert-merge.js';
import { plural, revertedSummary } from '../../shared/wording.js';
import type { CliIO } from '../io.js';

export interface RevertArgs {
  ref?: string;
  /** `--take current|before|markers` (every conflicted file), or `--take PATH=CHOICE`, repeatable. */
  take: string[];
  dryRun: boolean;
  json: boolean;
  force: boolean;
  project?: string;
  transcript?: string;
}

/** `--take` values: one choice for all, or one per path; anything else is a usage error. */
export function parseTake(values: string[]): Take | Record<string, Take> | null {
  if (values.length === 0) return null;
  const bad = (v: string) => new RewindError('USAGE', `--take is current, before or markers, or PATH=one of them (got "${v}")`);
  if (values.length === 1 && (TAKES as readonly string[]).includes(values[0]!)) return values[0] as Take;
  const out: Record<string, Take> = {};
  for (const v of values) {
    const i = v.lastIndexOf('=');
    const choice = v.slice(i + 1);
    if (i <= 0 || !(TAKES as readonly string[]).includes(choice)) throw bad(v);
    out[v.slice(0, i)] = choice as Take;
  }
  return out;
}

export async function revertCommand(args: RevertArgs, io: CliIO): Promise<number> {
  if (!args.ref) throw new RewindError('USAGE', "revert needs a prompt id (see rewind-app timeline)");
  const take = parseTake(args.take);
  const root = await projectRootOrCwd({ project: args.project, cwd: io.cwd, env: io.env });
  const session = await sessionForPrompt(root, args.ref, args.transcript);
  const r = await revert(root, { promptId: args.ref, session, take, dryRun: args.dryRun, force: args.force });
  printRevert(r, args, io);
  return 0;
}

export function printRevert(r: RevertResult, args: { json: boolean; dryRun: boolean }, io: CliIO): void {
  const p = r.preview;
  if (args.json) {
    io.out(
      JSON.stringify({
        promptId: p.promptId,
        agent: p.agent,
        sessionId: p.sessionId,
        checkpointId: p.checkpointId,
        afterCheckpointId: p.afterCheckpointId,
        afterNote: p.afterNote,
        dryRun: args.dryRun,
        changes: p.plan.changes.map((c) => ({ path: c.path, action: c.action })),
        conflicts: p.conflicts,
        unresolved: p.unresolved,
        diffs: p.diffs,
        applied: r.applied,
      }),
    );
    return;
  }
  io.err(`Prompt ${p.promptId}: ${p.afterNote}`);
  const badge = { create: 'A', modify: 'M', delete: 'D', unchanged: ' ' } as const;
  for (const c of p.plan.changes) io.out(`${badge[c.action]} ${c.path}`);
  for (const c of p.conflicts) {
    io.out(`! ${c.path}: ${c.reason}${c.choice ? ` (taking ${c.choice})` : ''}`);
    if (c.binary) io.out('  binary: keep the current file or take the one before the prompt');
    else io.out(createTwoFilesPatch(`current/${c.path}`, `before-the-prompt/${c.path}`, c.current ?? '', c.before ?? '', '', '', { context: 2 }).replace(/^=+\n/, '').replace(/^(---|\+\+\+) (.*)\t$/gm, '$1 $2').trimEnd());
  }
  for (const d of p.diffs) {
    if (d.binary) io.out(`\n${d.path}: binary, ${d.sizeBefore ?? 0} -> ${d.sizeAfter ?? 0} bytes`);
    else if (d.patch) io.out(`\n${d.patch.trimEnd()}`);
    else if (d.note) io.out(`\n${d.path}: ${d.note}`);
  }
  if (args.dryRun) {
    io.out(`\nDry run: ${plural(p.plan.changes.length, 'file')} would change, nothing written`);
    if (p.unresolved.length) io.out(`${plural(p.unresolved.length, 'conflict')} to choose first: --take current|before|markers (or --take PATH=CHOICE for each)`);
  } else io.out(`\n${revertedSummary(r.applied, p.promptId)}${r.applied ? '. Undo with: rewind-app undo' : ''}`);
}
