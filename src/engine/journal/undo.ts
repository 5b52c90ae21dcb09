import { copyFile, lstat, mkdir, open, rename, rmdir, unlink } from 'node:fs/promises';
import { assertOwnFileSlot } from '../io/own-file.js';
import { basename, dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { isRewindError, RewindError } from '../errors.js';
import { copyPrefixAtomic } from '../io/atomic-write.js';
import { fingerprintFile, sameFingerprint, type Fingerprint } from '../io/fingerprint.js';
import { appendJournal, isUndoable, latestAction, readJournal, undoneIds, type JournalRecord, type UndoableRecord, type UndoRecord } from './record.js';
import { validateRecord } from './guard.js';
import { ensureStore } from '../project.js';
import { removeFileHistoryDir } from '../agents/file-history-links.js';
import { beforeUndoPathFor } from '../agents/backup-path.js';
import { adapterOfFile, rootsFor } from '../agents/registry.js';
import { codeActionName, openRefusal, plural } from '../../shared/wording.js';
import type { TreeState } from '../store/tree-state.js';

export interface UndoResult {
  dryRun: boolean;
  undone: UndoableRecord;
  /** What was done, in the user's words. */
  summary: string;
  /** Where a removed fork or a replaced transcript was kept. */
  keptAt: string | null;
  /** Every record this undo reverted (more than one for a fork + code restore), newest first. */
  parts?: UndoableRecord[];
}

const shortId = (id: string) => id.slice(0, 8);

async function moveAside(path: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, `${Date.now()}-${basename(path)}`);
  try {
    await rename(path, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await assertOwnFileSlot(target);
    await copyFile(path, target);
    await unlink(path);
  }
  return target;
}

/** Reverts the newest fork or in-place rewrite that has not been undone yet. */
export interface UndoOptions {
  dryRun?: boolean;
  force?: boolean;
  now?: () => number;
  /** Agent roots a record's transcript may live in (default: every agent's, from the environment). */
  agentRoots?: string[];
  /** A restore goes back on the paths it changed only (an action that is not the newest). */
  scoped?: boolean;
  /** Dry runs only: the tree as already read (the history list checks many entries against one read). */
  treeNow?: TreeState;
}

/**
 * Reverts the newest user action. An action of several records (fork + restore) is undone whole:
 * every part is checked first (a dry run of each), so either all go back or none does.
 */
export async function undoLatest(projectRoot: string, opts: UndoOptions = {}): Promise<UndoResult> {
  if (!opts.dryRun) {
    const { recoverPending } = await import('../store/restore-intent.js');
    await recoverPending(projectRoot);
  }
  const parts = latestAction(await readJournal(projectRoot));
  if (parts.length === 0) throw new RewindError('NOTHING_TO_UNDO', `nothing to undo in ${join(projectRoot, '.agent', 'rewind', 'journal.jsonl')}`);
  return undoParts(projectRoot, parts, opts);
}

/**
 * Undoes one entry of the history by its journal id, not only the newest: an action (every record
 * of its group), the redo of an action (it is undone again), or an undo (that is a redo).
 */
export async function undoById(projectRoot: string, id: string, opts: UndoOptions = {}): Promise<UndoResult> {
  if (!opts.dryRun) {
    const { recoverPending } = await import('../store/restore-intent.js');
    await recoverPending(projectRoot);
  }
  const records = await readJournal(projectRoot);
  const r = records.find((x) => x.id === id || (id.length >= 6 && x.id.startsWith(id) && x.kind !== 'intent' && x.kind !== 'intent-end'));
  if (!r) throw new RewindError('NOT_FOUND', `no history entry ${id} (see rewind-app history)`);
  if (r.kind === 'undo') {
    const { redo } = await import('./redo.js');
    const done = await redo(projectRoot, { ...opts, undoId: r.id });
    return { dryRun: done.dryRun, undone: done.redone, summary: done.summary, keptAt: null };
  }
  const target: JournalRecord | undefined = r.kind === 'redo' ? records.find((x) => x.id === (records.find((u) => u.id === r.redoes) as UndoRecord | undefined)?.undoes) : r;
  if (!target || !isUndoable(target)) throw new RewindError('NOTHING_TO_UNDO', `history entry ${id} is not an action that can be undone`);
  const undone = undoneIds(records);
  if (undone.has(target.id)) throw new RewindError('NOTHING_TO_UNDO', `that action is already undone (redo it with: rewind-app redo)`);
  const parts = records.filter((x): x is UndoableRecord => isUndoable(x) && !undone.has(x.id) && (x.id === target.id || (!!target.group && x.group === target.group))).reverse();
  const newest = latestAction(records);
  const isNewest = newest.length > 0 && newest.some((x) => x.id === target.id);
  return undoParts(projectRoot, parts, { ...opts, scoped: !isNewest });
}

async function undoParts(projectRoot: string, parts: UndoableRecord[], opts: UndoOptions): Promise<UndoResult> {
  // Every path the records name is checked before anything is read or written.
  for (const p of parts) await validateRecord(projectRoot, p, opts.agentRoots ?? rootsFor(process.env).map((x) => x.root));
  if (parts.length === 1) return undoRecord(projectRoot, parts[0]!, opts);
  const checks: UndoResult[] = [];
  for (const p of parts) {
    try {
      checks.push(await undoRecord(projectRoot, p, { ...opts, dryRun: true }));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new RewindError(isRewindError(e) ? e.code : 'UNDO_MISMATCH', `cannot undo both parts of this action, so nothing was undone: ${msg}`);
    }
  }
  if (opts.dryRun) return { dryRun: true, undone: parts[0]!, summary: checks.map((c) => c.summary).join('; '), keptAt: null, parts };
  const done: UndoResult[] = [];
  for (const p of parts) done.push(await undoRecord(projectRoot, p, opts));
  return { dryRun: false, undone: parts[0]!, summary: done.map((d) => d.summary).join('; '), keptAt: done.find((d) => d.keptAt)?.keptAt ?? null, parts };
}

/** Reverts one journal record (a fork, an in-place rewrite or a restore), already validated. */
async function undoRecord(projectRoot: string, r: UndoableRecord, opts: UndoOptions): Promise<UndoResult> {
  const now = opts.now ?? Date.now;
  if (r.kind === 'fork' || r.kind === 'in-place') {
    // A session in an agent's database is changed back by that agent's adapter (it wrote it).
    const agent = await adapterOfFile(r.kind === 'fork' ? r.forkPath : r.transcript);
    if (agent.undoRewind) {
      const done = await agent.undoRewind(r.kind === 'fork' ? { ...r, kind: 'fork' } : { ...r, kind: 'in-place' }, opts);
      if (opts.dryRun) return { dryRun: true, undone: r, summary: done.summary, keptAt: null };
      await appendJournal(projectRoot, { kind: 'undo', id: randomUUID(), ...groupOf(r), time: new Date(now()).toISOString(), undoes: r.id, keptAt: done.keptAt });
      return { dryRun: false, undone: r, summary: done.summary, keptAt: done.keptAt };
    }
  }
  const store = await (opts.dryRun ? Promise.resolve(join(projectRoot, '.agent', 'rewind')) : ensureStore(projectRoot));
  if (r.kind === 'fork') {
    const exists = await lstat(r.forkPath).catch(() => null);
    if (exists && !exists.isFile()) throw new RewindError('UNSAFE_PATH', `not a transcript file: ${r.forkPath}; nothing was written`);
    if (exists) {
      const fp = await fingerprintFile(r.forkPath);
      if (!sameFingerprint(fp, r.result) && !opts.force) {
        throw new RewindError('UNDO_MISMATCH', `fork ${r.forkSessionId} changed since it was created (resumed?): pass --force to remove it anyway (it is kept under .agent/rewind/undone/)`);
      }
    }
    // In the user's words: the fork by its short id (as the sidebar and resume command show it), no paths.
    const fork = shortId(r.forkSessionId);
    const summary = exists ? `Removed fork ${fork} (kept aside in Rewind's store)` : `Fork ${fork} was already gone`;
    if (opts.dryRun) return { dryRun: true, undone: r, summary: `Would remove fork ${fork}`, keptAt: null };
    let keptAt: string | null = null;
    if (exists) keptAt = await moveAside(r.forkPath, join(store, 'undone'));
    // A fork in a folder of its own (Copilot's `<id>/events.jsonl`): the folder goes too, when nothing else is in it.
    if (exists && basename(dirname(r.forkPath)) === r.forkSessionId) await rmdir(dirname(r.forkPath)).catch(() => undefined);
    if (r.fileHistoryDir) {
      // Only the real directory we linked: never through a symlink.
      const fh = await lstat(r.fileHistoryDir).catch(() => null);
      if (fh?.isDirectory()) await removeFileHistoryDir(r.fileHistoryDir);
    }
    await appendJournal(projectRoot, { kind: 'undo', id: randomUUID(), ...groupOf(r), time: new Date(now()).toISOString(), undoes: r.id, keptAt });
    return { dryRun: false, undone: r, summary, keptAt };
  }
  if (r.kind === 'in-place') {
    const backup = await lstat(r.backupPath).catch(() => null);
    if (!backup?.isFile()) throw new RewindError('NOT_FOUND', `backup is missing: ${r.backupPath}`);
    const current = await lstat(r.transcript).catch(() => null);
    if (current && !current.isFile()) throw new RewindError('UNSAFE_PATH', `not a transcript file: ${r.transcript}; nothing was written`);
    // The rewrite left a file there: a missing one is not the state we recorded.
    if (!current && !opts.force) throw new RewindError('UNDO_MISMATCH', `transcript is missing since the rewrite: ${r.transcript} (pass --force to put the backup there anyway)`);
    let mismatch = false;
    if (current) {
      const fp = await fingerprintFile(r.transcript);
      mismatch = !sameFingerprint(fp, r.result);
      if (mismatch && !opts.force) {
        throw new RewindError('UNDO_MISMATCH', `transcript changed since the rewrite (the session went on): pass --force to put the backup back anyway (the current file is kept)`);
      }
    }
    // Never put back under a running agent that has the session open (its next write would be lost, or damage it).
    await refuseUnderOpenAgent(r.transcript);
    if (opts.dryRun) return { dryRun: true, undone: r, summary: 'Would put back the transcript as it was before the rewrite', keptAt: null };
    // The same lock as an in-place rewrite: never two writers of one transcript.
    const { lockTranscript } = await import('../io/transcript-lock.js');
    const lock = await lockTranscript(r.transcript);
    try {
      return await putBack(projectRoot, r, store, backup.size, current !== null && mismatch, now, current && !mismatch ? r.result : null);
    } finally {
      await lock.release();
    }
  }
  return undoRestoreRecord(projectRoot, r, opts, now);
}

/** Undo records of a grouped action share its group: a redo puts the whole action back. */
const groupOf = (r: UndoableRecord) => (r.group ? { group: r.group } : {});

async function putBack(
  projectRoot: string,
  r: Extract<UndoableRecord, { kind: 'in-place' }>,
  store: string,
  backupSize: number,
  keepCurrent: boolean,
  now: () => number,
  expected: Fingerprint | null,
): Promise<UndoResult> {
  // The same builder as the writers' backups: an id, inside transcript-backup/, or a refusal.
  const keepPath = () => beforeUndoPathFor(projectRoot, r.sessionId, now());
  let keptAt: string | null = null;
  if (keepCurrent) {
    keptAt = keepPath();
    // Names in the store: never written through a link a project put there.
    await assertOwnFileSlot(keptAt);
    await copyFile(r.transcript, keptAt);
  }
  // What a redo puts back, byte for byte: the file this undo replaces.
  let redoCopy: string | null = keptAt;
  if (!redoCopy && (await lstat(r.transcript).catch(() => null))) {
    await mkdir(join(store, 'undone'), { recursive: true, mode: 0o700 });
    redoCopy = join(store, 'undone', `${Date.now()}-${r.sessionId}-rewritten.jsonl`);
    await assertOwnFileSlot(redoCopy);
    await copyFile(r.transcript, redoCopy);
  }
  // Held open across the rename: an append that lands on the replaced file is kept, not lost.
  const old = expected ? await open(r.transcript, 'r') : null;
  try {
    await copyPrefixAtomic(r.backupPath, r.transcript, backupSize, async () => {
      if (expected && !sameFingerprint(await fingerprintFile(r.transcript), expected)) {
        throw new RewindError('TRANSCRIPT_CHANGED', `transcript changed while we were undoing (the agent is running): nothing was replaced`);
      }
    });
    if (old && expected && (await old.stat()).size > expected.size) {
      keptAt = keepPath();
      const { writeFile } = await import('node:fs/promises');
      await assertOwnFileSlot(keptAt);
      await writeFile(keptAt, await old.readFile(), { mode: 0o600 });
    }
  } finally {
    await old?.close();
  }
  const left = await fingerprintFile(r.transcript);
  await appendJournal(projectRoot, { kind: 'undo', id: randomUUID(), ...groupOf(r), time: new Date(now()).toISOString(), undoes: r.id, keptAt: redoCopy, left });
  const warnings = await agentRewritten(r.transcript);
  return { dryRun: false, undone: r, summary: `Put back the transcript as it was before the rewrite${keptAt ? ' (the newer one is kept aside)' : ''}${warnings.map((w) => ` (warning: ${w})`).join('')}`, keptAt };
}

/** SESSION_OPEN when a running agent has the transcript's session open (a put-back is a rewrite too). */
export async function refuseUnderOpenAgent(transcript: string): Promise<void> {
  const adapter = await adapterOfFile(transcript).catch(() => null);
  if (!adapter) return;
  const { openStateOf } = await import('../agents/open-session.js');
  const open = await openStateOf(adapter, transcript, null).catch(() => null);
  if (open) throw new RewindError('SESSION_OPEN', openRefusal(adapter.displayName, open, 'undo'));
}

/** The agent drops what it caches of a transcript Rewind put back (Codex: its turn projection). */
export async function agentRewritten(transcript: string): Promise<string[]> {
  const adapter = await adapterOfFile(transcript).catch(() => null);
  return (await adapter?.rewritten?.(transcript).catch((e: unknown) => [`${(e as Error).message}`])) ?? [];
}

async function undoRestoreRecord(projectRoot: string, r: Extract<UndoableRecord, { kind: 'restore' | 'revert' }>, opts: UndoOptions, now: () => number): Promise<UndoResult> {
  const { undoRestore } = await import('../store/restore.js');
  const record: UndoRecord = { kind: 'undo', id: randomUUID(), ...groupOf(r), time: new Date(now()).toISOString(), undoes: r.id };
  // A revert touches only its own paths, and so does its undo; so does the undo of an older restore.
  const scoped = r.kind === 'revert' || !!opts.scoped;
  const what = codeActionName(r);
  const plan = await undoRestore(projectRoot, r, { dryRun: opts.dryRun, force: opts.force, now, undoRecord: record, scoped, current: opts.dryRun ? opts.treeNow : undefined });
  const n = plan.changes.length;
  // A dry run says what would stop the real undo (a part of a group is checked this way first).
  if (opts.dryRun && plan.conflicts > 0 && !opts.force) {
    throw new RewindError('CONFLICT', `files changed since the restore: ${plan.changes.filter((c) => c.conflict).map((c) => c.path).slice(0, 5).join(', ')} (pass --force to undo anyway)`);
  }
  if (opts.dryRun) return { dryRun: true, undone: r, summary: `Would undo ${what}: ${plural(n, 'file')} change back`, keptAt: null };
  await appendJournal(projectRoot, record);
  await plan.finish?.();
  return { dryRun: false, undone: r, summary: `Undid ${what}: ${plural(n, 'file')} put back as they were`, keptAt: null };
}
