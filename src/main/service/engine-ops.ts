import type { RewindRequest } from '../../engine/agents/adapter.js';
import { adapterFor, type AgentId } from '../../engine/agents/registry.js';
import { RewindError } from '../../engine/errors.js';
import { takeCheckpoint, type CheckpointOptions } from '../../engine/store/checkpoint.js';
import { nothingForPrompt, previewRestore, restore, targetForRewind, type RestoreSession, type RestoreTarget } from '../../engine/store/restore.js';
import { undoById, undoLatest } from '../../engine/journal/undo.js';
import { redo } from '../../engine/journal/redo.js';
import { listHistory } from '../../engine/journal/history.js';
import { revert, type RevertOptions } from '../../engine/store/revert.js';
import { INDEX_OPS } from './index-ops.js';

/**
 * The long-running engine work the service hands off the main thread. Arguments and results are
 * plain data (structured-cloneable): the same table runs in a worker or inline.
 */
export const ENGINE_OPS = {
  /** The first read of a session the service follows (the agent's `follow.parse`). */
  follow: async (a: { agent: AgentId; path: string }) => {
    const adapter = adapterFor(a.agent);
    if (!adapter.follow) throw new RewindError('UNSUPPORTED', `${adapter.displayName} sessions are read whole, not followed`);
    return adapter.follow.parse(a.path);
  },
  rewind: async (a: RewindRequest & { agent: AgentId }) => {
    const adapter = adapterFor(a.agent);
    if (!adapter.rewind) throw new RewindError('UNSUPPORTED', `${adapter.displayName} sessions are shown, not rewound, for now`);
    return adapter.rewind(a);
  },
  checkpoint: async (a: Omit<CheckpointOptions, 'now' | 'fromState'>) => {
    const r = await takeCheckpoint(a);
    return { id: r.manifest.id, files: r.manifest.entries.filter((e) => e[1] !== 'd').length, hashed: r.hashed, skipped: r.manifest.skipped.length };
  },
  /** The code to go with a chat rewind (the agent's store is read here, off the main thread). */
  codeTarget: async (a: { projectRoot: string; session: RestoreSession; promptUuid: string; boundaryOffset: number; agentRoot?: string | null }) => {
    const target = await targetForRewind(a.projectRoot, a.session, a.promptUuid, a.boundaryOffset, { agentRoot: a.agentRoot });
    return { target, missing: target ? null : await nothingForPrompt(a.session, a.projectRoot) };
  },
  previewRestore: async (a: { projectRoot: string; target: RestoreTarget; agentRoot?: string | null; withDiffs?: boolean }) =>
    (await previewRestore(a.projectRoot, a.target, { agentRoot: a.agentRoot, withDiffs: a.withDiffs })).preview,
  restore: async (a: { projectRoot: string; target: RestoreTarget; agentRoot?: string | null; force?: boolean; journalGroup?: string }) =>
    restore(a.projectRoot, a.target, { agentRoot: a.agentRoot, force: a.force, journalGroup: a.journalGroup }),
  undo: async (a: { projectRoot: string; dryRun?: boolean; force?: boolean; agentRoots?: string[] }) => undoLatest(a.projectRoot, { dryRun: a.dryRun, force: a.force, agentRoots: a.agentRoots }),
  undoById: async (a: { projectRoot: string; id: string; dryRun?: boolean; force?: boolean; agentRoots?: string[] }) => undoById(a.projectRoot, a.id, { dryRun: a.dryRun, force: a.force, agentRoots: a.agentRoots }),
  redo: async (a: { projectRoot: string; dryRun?: boolean; force?: boolean; agentRoots?: string[] }) => redo(a.projectRoot, { dryRun: a.dryRun, force: a.force, agentRoots: a.agentRoots }),
  revert: async (a: { projectRoot: string } & Omit<RevertOptions, 'now' | 'writeHook'>) => {
    const { projectRoot, ...opts } = a;
    return revert(projectRoot, opts);
  },
  history: async (a: { projectRoot: string; agentRoots: { id: string; root: string }[] }) => listHistory(a.projectRoot, { agentRoots: a.agentRoots }),
  ...INDEX_OPS,
};

export type EngineOps = typeof ENGINE_OPS;
export type OpName = keyof EngineOps;
export type OpArgs<K extends OpName> = Parameters<EngineOps[K]>[0];
export type OpResult<K extends OpName> = Awaited<ReturnType<EngineOps[K]>>;
