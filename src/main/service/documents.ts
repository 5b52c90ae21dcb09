import type { RewindOutcome } from '../../engine/agents/adapter.js';
import type { RestorePreview } from '../../engine/store/restore.js';
import type { RevertPreview } from '../../engine/store/revert.js';
import type { CodePlan, ResponseOf, RevertPlan } from '../../shared/contract.js';
import { plural, statementLines } from '../../shared/wording.js';

/** The engine's plans shaped into the contract's documents (pure): what the doors send back. */

/** A restore's plan, file by file, with each file's diff. */
export function codePlanDoc(p: RestorePreview, projectRoot: string): CodePlan {
  const diffs = new Map(p.diffs.map((d) => [d.path, d]));
  return {
    source: p.target.source,
    agent: p.target.agent ?? null,
    checkpointId: p.target.checkpoint?.id ?? null,
    note: p.target.note,
    projectRoot,
    changes: p.plan.changes.map((c) => {
      const d = diffs.get(c.path);
      return {
        path: c.path,
        action: c.action,
        kind: (c.after ?? c.before)?.kind ?? 'f',
        conflict: c.conflict,
        binary: d?.binary ?? false,
        sizeBefore: d?.sizeBefore ?? null,
        sizeAfter: d?.sizeAfter ?? null,
        patch: d?.patch ?? null,
        note: d?.note ?? null,
      };
    }),
    unchanged: p.plan.unchanged,
    untouched: p.plan.untouched.slice(0, 200),
    skipped: p.skipped,
    conflicts: p.plan.conflicts,
  };
}


/** A revert's plan, file by file. */
export function revertPlanDoc(p: RevertPreview, projectRoot: string): RevertPlan {
  const diffs = new Map(p.diffs.map((d) => [d.path, d]));
  return {
    promptId: p.promptId,
    checkpointId: p.checkpointId,
    afterCheckpointId: p.afterCheckpointId,
    afterNote: p.afterNote,
    projectRoot,
    changes: p.plan.changes.map((c) => {
      const d = diffs.get(c.path);
      return { path: c.path, action: c.action, kind: (c.after ?? c.before)?.kind ?? 'f', conflict: null, binary: d?.binary ?? false, sizeBefore: d?.sizeBefore ?? null, sizeAfter: d?.sizeAfter ?? null, patch: d?.patch ?? null, note: d?.note ?? null };
    }),
    conflicts: p.conflicts,
    unresolved: p.unresolved,
  };
}


/** A rewind's chat part as previews and results show it. */
export function chatDoc(r: RewindOutcome): ResponseOf<'previewRewind'>['chat'] {
  return {
    transcript: r.transcript,
    sessionId: r.sessionId,
    mode: r.mode,
    boundaryOffset: r.boundaryOffset,
    resultSize: r.resultSize,
    droppedMessages: r.droppedMessages,
    prompts: r.prompts.map((p) => ({ uuid: p.uuid, text: p.text, images: p.images, timestamp: p.timestamp })),
    statement: r.statement ?? null,
    sizeAtPlan: r.size ?? null,
    backupPath: r.backupPath,
    warnings: r.warnings,
  };
}


/** The rewind statement's words (the CLI's dry run says the same), and the files when the code goes too. */
export function rewindSummary(chat: RewindOutcome, files: number | null): string {
  const n = chat.prompts.length;
  const said = chat.statement ? statementLines(chat.statement).join(' ') : `${chat.mode === 'fork' ? 'Fork before this prompt' : 'Rewrite in place'}: ${plural(n, 'prompt')} left out.`;
  return files === null ? said : `${said} Restores ${plural(files, 'file')}.`;
}

