import { readLines } from '../../engine/io/read-lines.js';
import { rewindTranscript, type RewindOptions } from '../../engine/claude/rewind/rewind.js';
import { SessionBuilder } from '../../engine/claude/session-builder.js';
import type { SessionModel } from '../../engine/claude/model.js';
import { takeCheckpoint, type CheckpointOptions } from '../../engine/store/checkpoint.js';
import { previewRestore, restore, type RestoreTarget } from '../../engine/store/restore.js';
import { undoLatest } from '../../engine/undo.js';

/**
 * The long-running engine work the service hands off the main thread. Arguments and results are
 * plain data (structured-cloneable): the same table runs in a worker or inline.
 */
export const ENGINE_OPS = {
  parse: async (a: { path: string }) => {
    const builder = new SessionBuilder();
    const res = await readLines(a.path, (line) => builder.addLine(line));
    return { builder, endOffset: res.endOffset, lineCount: res.lineCount, size: res.size, partial: res.partial !== null };
  },
  rewind: async (a: Omit<RewindOptions, 'now' | 'beforeRevalidate'>) => rewindTranscript(a),
  checkpoint: async (a: Omit<CheckpointOptions, 'now' | 'fromState'>) => {
    const r = await takeCheckpoint(a);
    return { id: r.manifest.id, files: r.manifest.entries.filter((e) => e[1] !== 'd').length, hashed: r.hashed, skipped: r.manifest.skipped.length };
  },
  previewRestore: async (a: { projectRoot: string; target: RestoreTarget; session: SessionModel | null; claudeRoot: string; withDiffs?: boolean }) =>
    (await previewRestore(a.projectRoot, a.target, { session: a.session, claudeRoot: a.claudeRoot, withDiffs: a.withDiffs })).preview,
  restore: async (a: { projectRoot: string; target: RestoreTarget; session: SessionModel | null; claudeRoot: string; force?: boolean; journalGroup?: string }) =>
    restore(a.projectRoot, a.target, { session: a.session, claudeRoot: a.claudeRoot, force: a.force, journalGroup: a.journalGroup }),
  undo: async (a: { projectRoot: string; dryRun?: boolean; force?: boolean }) => undoLatest(a.projectRoot, { dryRun: a.dryRun, force: a.force }),
};

export type EngineOps = typeof ENGINE_OPS;
export type OpName = keyof EngineOps;
export type OpArgs<K extends OpName> = Parameters<EngineOps[K]>[0];
export type OpResult<K extends OpName> = Awaited<ReturnType<EngineOps[K]>>;
