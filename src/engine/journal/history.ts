import { describeError } from '../errors.js';
import { activeUndos, isUndoable, readJournal, undoneIds, type JournalRecord, type UndoableRecord } from './record.js';
import { listCheckpoints, readManifest, type CheckpointSummary } from '../store/manifest.js';
import { touchedBetween } from '../store/restore.js';
import { treeFromEntries } from '../store/tree-state.js';
import { plural } from '../../shared/wording.js';

export type HistoryKind = 'fork' | 'in-place' | 'restore' | 'revert' | 'undo' | 'redo';

/** One entry of the operations list: every action, undo and redo the project's journal holds. */
export interface HistoryEntry {
  id: string;
  kind: HistoryKind;
  time: string;
  group: string | null;
  agent: string | null;
  sessionId: string | null;
  transcript: string | null;
  /** The prompt it was about: "#n" when the number is known, else its id. */
  prompt: string | null;
  /** Paths it wrote: project files (relative), or a session file (absolute). */
  files: string[];
  /** Where the prompts it left out went (a fork, an in-place rewrite); null for code actions. */
  dropped: string | null;
  /** For an undo or a redo: the entry it acted on. */
  refers: string | null;
  /** An action taken back by an undo (and not redone), or an undo a redo cancelled. */
  undone: boolean;
  /** Whether undoing it now would go through (an undo's undo is its redo). */
  undoable: boolean;
  /** Why not: the path that changed since, or that it is undone already. */
  why: string | null;
}

/** The agent a session file belongs to, by which agent's root holds it (no file is read). */
async function agentOfPath(path: string | null, roots: { id: string; root: string }[]): Promise<string | null> {
  if (!path) return null;
  const { sep } = await import('node:path');
  return roots.find((r) => path.startsWith(r.root.endsWith(sep) ? r.root : `${r.root}${sep}`))?.id ?? null;
}

/** Files a tree action changed, from its pre and post checkpoints (unknown: an empty list). */
async function touchedOf(projectRoot: string, pre: string | undefined, post: string | undefined): Promise<string[]> {
  if (!pre || !post) return [];
  try {
    const [a, b] = await Promise.all([readManifest(projectRoot, pre), readManifest(projectRoot, post)]);
    return touchedBetween(treeFromEntries(a.entries), treeFromEntries(b.entries));
  } catch {
    return [];
  }
}

function promptOfCheckpoint(list: CheckpointSummary[], id: string): CheckpointSummary | null {
  return list.find((c) => c.id === id) ?? null;
}

export interface HistoryOptions {
  /** Agent roots (for which agent wrote a session, and to trust a record's paths). */
  agentRoots?: { id: string; root: string }[];
  /** Skip the undo checks (each is a dry run of the undo): only what happened. */
  withStatus?: boolean;
}

/**
 * The project's operations, newest first. Whether each can still be undone is the undo's own dry
 * run (the same checks, so the list never promises what the undo would refuse).
 */
export async function listHistory(projectRoot: string, opts: HistoryOptions = {}): Promise<HistoryEntry[]> {
  const records = await readJournal(projectRoot);
  const checkpoints = await listCheckpoints(projectRoot).catch(() => [] as CheckpointSummary[]);
  const roots = opts.agentRoots ?? (await import('../agents/registry.js')).rootsFor(process.env).map((r) => ({ id: r.adapter.id, root: r.root }));
  const undone = undoneIds(records);
  const active = new Set(activeUndos(records).map((u) => u.id));
  const byId = new Map(records.map((r) => [r.id, r]));
  const out: HistoryEntry[] = [];
  const describe = async (r: UndoableRecord): Promise<Pick<HistoryEntry, 'agent' | 'sessionId' | 'transcript' | 'prompt' | 'files' | 'dropped'>> => {
    if (r.kind === 'fork') {
      const left = r.prompts.length;
      return {
        agent: await agentOfPath(r.transcript, roots),
        sessionId: r.sessionId,
        transcript: r.transcript,
        prompt: r.promptNumber ? `#${r.promptNumber}` : (r.prompts[0] ?? null),
        files: [r.forkPath, ...(r.fileHistoryDir ? [r.fileHistoryDir] : [])],
        dropped: `${plural(left, 'prompt')} left out of fork ${r.forkSessionId}: still in session ${r.sessionId}`,
      };
    }
    if (r.kind === 'in-place') {
      return {
        agent: await agentOfPath(r.transcript, roots),
        sessionId: r.sessionId,
        transcript: r.transcript,
        prompt: r.prompts[0] ?? null,
        files: [r.transcript],
        dropped: `${plural(r.prompts.length, 'prompt')} dropped from the session: kept in the backup ${r.backupPath}`,
      };
    }
    const files = await touchedOf(projectRoot, r.preRestoreCheckpointId, r.postRestoreCheckpointId);
    if (r.kind === 'revert') return { agent: r.agent, sessionId: r.sessionId, transcript: r.transcript, prompt: r.promptId, files, dropped: null };
    const c = promptOfCheckpoint(checkpoints, r.checkpointId);
    const t = c?.transcript ?? null;
    return { agent: t?.agent ?? null, sessionId: t?.session_id ?? null, transcript: t?.transcript_path ?? null, prompt: t?.prompt_uuid ?? t?.prompt_id ?? null, files, dropped: null };
  };
  for (const r of records) {
    if (r.kind === 'intent' || r.kind === 'intent-end') continue;
    const base = { id: r.id, kind: r.kind, time: r.time, group: r.group ?? null };
    if (isUndoable(r)) {
      out.push({ ...base, ...(await describe(r)), refers: null, undone: undone.has(r.id), undoable: false, why: null });
      continue;
    }
    const target = r.kind === 'undo' ? byId.get(r.undoes) : byId.get((byId.get(r.redoes) as Extract<JournalRecord, { kind: 'undo' }> | undefined)?.undoes ?? '');
    const d = target && isUndoable(target) ? await describe(target) : { agent: null, sessionId: null, transcript: null, prompt: null, files: [], dropped: null };
    let files = d.files;
    if (r.kind === 'undo' && r.preUndoCheckpointId) files = await touchedOf(projectRoot, r.preUndoCheckpointId, r.postUndoCheckpointId);
    if (r.kind === 'redo' && r.preRestoreCheckpointId) files = await touchedOf(projectRoot, r.preRestoreCheckpointId, r.postRestoreCheckpointId);
    const dropped = r.kind === 'undo' && r.keptAt ? `set aside at ${r.keptAt}` : null;
    out.push({ ...base, ...d, files, dropped, refers: target?.id ?? null, undone: r.kind === 'undo' && !active.has(r.id), undoable: false, why: null });
  }
  out.reverse();
  if (opts.withStatus !== false) {
    const { undoById } = await import('./undo.js');
    const agentRoots = roots.map((r) => r.root);
    // One read of the tree for every check (each is a dry run of the undo).
    const { currentTree } = await import('../store/tree-state.js');
    const { latestManifest } = await import('../store/manifest.js');
    const treeNow = await currentTree(projectRoot, await latestManifest(projectRoot));
    for (const e of out) {
      if (e.kind === 'undo' && e.undone) {
        e.why = 'already redone';
        continue;
      }
      if (e.kind !== 'undo' && e.kind !== 'redo' && e.undone) {
        e.why = 'already undone';
        continue;
      }
      if (e.kind === 'redo' && e.refers && undone.has(e.refers)) {
        e.why = 'already undone';
        continue;
      }
      try {
        await undoById(projectRoot, e.id, { dryRun: true, agentRoots, treeNow });
        e.undoable = true;
      } catch (err) {
        e.why = describeError(err).message;
      }
    }
  }
  return out;
}
