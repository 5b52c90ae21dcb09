import { constants, copyFile, lstat, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { isRewindError, RewindError } from '../errors.js';
import { fingerprintFile, sameFingerprint } from '../io/fingerprint.js';
import { activeUndos, appendJournal, readJournal, type UndoableRecord, type UndoRecord } from './record.js';
import { validateRecord } from './guard.js';
import { rootsFor } from '../agents/registry.js';
import { codeActionName, plural } from '../../shared/wording.js';
import type { TreeState } from '../store/tree-state.js';

export interface RedoOptions {
  dryRun?: boolean;
  force?: boolean;
  now?: () => number;
  agentRoots?: string[];
  /** The undo to take back (default: the newest one no redo has cancelled). */
  undoId?: string;
  /** Dry runs only: the tree as already read. */
  treeNow?: TreeState;
}

export interface RedoResult {
  dryRun: boolean;
  /** The action put back (the newest part of it, for a grouped one). */
  redone: UndoableRecord;
  parts: UndoableRecord[];
  summary: string;
}

/**
 * Puts an undone action back, byte for byte: the tree as it was before the undo, the fork file it
 * set aside, the rewritten transcript it replaced. Refused, with the path, when anything the redo
 * would touch changed since the undo (the checks of undo; `force` overrides them as it does there).
 * A grouped action (fork + code) comes back whole: every part is checked first.
 */
export async function redo(projectRoot: string, opts: RedoOptions = {}): Promise<RedoResult> {
  if (!opts.dryRun) {
    const { recoverPending } = await import('../store/restore-intent.js');
    await recoverPending(projectRoot);
  }
  const records = await readJournal(projectRoot);
  const active = activeUndos(records);
  const chosen = opts.undoId ? active.find((u) => u.id === opts.undoId) : active[active.length - 1];
  if (!chosen) {
    const known = opts.undoId && records.some((r) => r.id === opts.undoId);
    throw new RewindError('NOTHING_TO_UNDO', known ? 'that undo was already redone' : `nothing to redo in ${join(projectRoot, '.agent', 'rewind', 'journal.jsonl')}`);
  }
  // Oldest first: the reverse of the order the undo took them back in.
  const undos = chosen.group ? active.filter((u) => u.group === chosen.group) : [chosen];
  const pairs = undos.map((u) => {
    const r = records.find((x) => x.id === u.undoes);
    if (!r || r.kind === 'undo' || r.kind === 'redo' || r.kind === 'intent' || r.kind === 'intent-end') throw new RewindError('NOT_FOUND', `the action undo ${u.id} took back is not in the journal`);
    return { u, r: r as UndoableRecord };
  });
  const roots = opts.agentRoots ?? rootsFor(process.env).map((x) => x.root);
  for (const p of pairs) await validateRecord(projectRoot, p.r, roots);
  // A journal can arrive with a cloned repository: what an undo set aside is only ever in our store.
  const { requireInside } = await import('../guard.js');
  const { storeDir } = await import('../project.js');
  const keptRoots = [join(storeDir(projectRoot), 'undone'), join(storeDir(projectRoot), 'transcript-backup')];
  for (const p of pairs) if (p.u.keptAt) await requireInside(keptRoots, p.u.keptAt, 'a journal record naming a set-aside file');
  const checked: string[] = [];
  for (const p of pairs) {
    try {
      checked.push(await redoOne(projectRoot, p.u, p.r, { ...opts, dryRun: true }));
    } catch (e) {
      if (pairs.length === 1) throw e;
      const msg = e instanceof Error ? e.message : String(e);
      throw new RewindError(isRewindError(e) ? e.code : 'UNDO_MISMATCH', `cannot redo every part of this action, so nothing was redone: ${msg}`);
    }
  }
  const parts = pairs.map((p) => p.r).reverse();
  if (opts.dryRun) return { dryRun: true, redone: parts[0]!, parts, summary: checked.join('; ') };
  const done: string[] = [];
  for (const p of pairs) done.push(await redoOne(projectRoot, p.u, p.r, opts));
  return { dryRun: false, redone: parts[0]!, parts, summary: done.join('; ') };
}

/** Redoes one record; a dry run only checks and says what it would do. */
async function redoOne(projectRoot: string, u: UndoRecord, r: UndoableRecord, opts: RedoOptions): Promise<string> {
  const now = opts.now ?? Date.now;
  const record = () => ({ kind: 'redo' as const, id: randomUUID(), ...(u.group ? { group: u.group } : {}), time: new Date(now()).toISOString(), redoes: u.id });
  if (r.kind === 'fork') {
    const kept = u.keptAt ? await lstat(u.keptAt).catch(() => null) : null;
    if (!u.keptAt || !kept?.isFile()) throw new RewindError('NOT_FOUND', `the fork ${r.forkSessionId} the undo set aside is gone${u.keptAt ? `: ${u.keptAt}` : ''}`);
    if (await lstat(r.forkPath).catch(() => null)) throw new RewindError('UNDO_MISMATCH', `${r.forkPath} exists again since the undo: nothing was redone`);
    if (!sameFingerprint(await fingerprintFile(u.keptAt), r.result) && !opts.force) throw new RewindError('UNDO_MISMATCH', `the fork set aside at ${u.keptAt} changed since the undo (pass --force to put it back anyway)`);
    if (opts.dryRun) return `Would put back fork ${r.forkSessionId}`;
    try {
      await rename(u.keptAt, r.forkPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      // EXCL: the path was checked empty above; never through whatever appeared there since.
      await copyFile(u.keptAt, r.forkPath, constants.COPYFILE_EXCL);
      await unlink(u.keptAt);
    }
    if (r.fileHistoryDir) {
      const { linkFileHistory } = await import('../agents/file-history-links.js');
      await linkFileHistory(dirname(dirname(r.fileHistoryDir)), r.sessionId, r.forkSessionId);
    }
    await appendJournal(projectRoot, record());
    return `Put back fork ${r.forkSessionId}`;
  }
  if (r.kind === 'in-place') {
    if (!u.keptAt || !u.left || !(await lstat(u.keptAt).catch(() => null))?.isFile()) throw new RewindError('NOT_FOUND', 'this undo kept no copy of the rewritten transcript: it cannot be redone');
    const cur = await lstat(r.transcript).catch(() => null);
    if (cur && !cur.isFile()) throw new RewindError('UNSAFE_PATH', `not a transcript file: ${r.transcript}; nothing was written`);
    const changed = !cur || !sameFingerprint(await fingerprintFile(r.transcript), u.left);
    if (changed && !opts.force) throw new RewindError('UNDO_MISMATCH', `transcript changed since the undo (the session went on): ${r.transcript} (pass --force to redo anyway)`);
    const { refuseUnderOpenAgent, agentRewritten } = await import('./undo.js');
    await refuseUnderOpenAgent(r.transcript);
    if (opts.dryRun) return `Would rewrite ${r.transcript} again`;
    const { lockTranscript } = await import('../io/transcript-lock.js');
    const { copyPrefixAtomic } = await import('../io/atomic-write.js');
    const lock = await lockTranscript(r.transcript);
    try {
      const size = (await lstat(u.keptAt)).size;
      await copyPrefixAtomic(u.keptAt, r.transcript, size, async () => {
        if (!changed && !sameFingerprint(await fingerprintFile(r.transcript), u.left!)) throw new RewindError('TRANSCRIPT_CHANGED', 'transcript changed while we were redoing (the agent is running): nothing was replaced');
      });
    } finally {
      await lock.release();
    }
    await appendJournal(projectRoot, record());
    const warnings = await agentRewritten(r.transcript);
    return `Rewrote ${r.transcript} again (backup: ${r.backupPath})${warnings.map((w) => ` (warning: ${w})`).join('')}`;
  }
  // A restore or a revert: the tree as it was right before the undo, on the paths the undo changed.
  if (!u.preUndoCheckpointId || !u.postUndoCheckpointId) throw new RewindError('UNDO_MISMATCH', 'this undo kept no record of the files it replaced: it cannot be redone');
  const [{ readManifest, latestManifest }, { currentTree, treeFromEntries }, { planRestore }, { objectStore }, { applyRecorded, touchedBetween }] = await Promise.all([
    import('../store/manifest.js'),
    import('../store/tree-state.js'),
    import('../store/restore-plan.js'),
    import('../store/checkpoint.js'),
    import('../store/restore.js'),
  ]);
  const pre = await readManifest(projectRoot, u.preUndoCheckpointId);
  const post = await readManifest(projectRoot, u.postUndoCheckpointId);
  const [preTree, postTree] = [treeFromEntries(pre.entries), treeFromEntries(post.entries)];
  const current = (opts.dryRun ? opts.treeNow : undefined) ?? (await currentTree(projectRoot, await latestManifest(projectRoot)));
  const plan = planRestore({ target: preTree, current, expected: postTree, coverage: new Set(touchedBetween(preTree, postTree)), leaveAlone: new Set(pre.skipped.map((s) => s.path)) });
  const conflicts = plan.changes.filter((c) => c.conflict).map((c) => c.path);
  if (conflicts.length && !opts.force) throw new RewindError('CONFLICT', `files changed since the undo: ${conflicts.slice(0, 5).join(', ')} (pass --force to redo anyway)`);
  const what = codeActionName(r);
  if (opts.dryRun) return `Would redo ${what}: ${plural(plan.changes.length, 'file')} change`;
  const objects = objectStore(projectRoot);
  const keepDirs = new Set(pre.entries.filter((e) => e[1] === 'd').map((e) => e[0]));
  await applyRecorded(projectRoot, { plan, current, readBlob: (ref) => objects.read(ref), keepDirs }, { op: 'redo', label: `redoing ${what}`, now: opts.now, record: (id, time, preRestoreCheckpointId) => ({ ...record(), id, time, preRestoreCheckpointId }) });
  return `Redid ${what}: ${plural(plan.changes.length, 'file')} put back`;
}
