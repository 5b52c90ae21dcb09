import { copyFile, mkdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { isRewindError, RewindError } from './errors.js';
import { copyPrefixAtomic } from './io/atomic-write.js';
import { fingerprintFile, sameFingerprint } from './io/fingerprint.js';
import { appendJournal, latestAction, readJournal, type JournalRecord } from './journal.js';
import { ensureStore } from './project.js';
import { removeFileHistoryDir } from './agents/claude/file-history-links.js';
import { plural } from '../shared/wording.js';

export interface UndoResult {
  dryRun: boolean;
  undone: Exclude<JournalRecord, { kind: 'undo' }>;
  /** What was done, in the user's words. */
  summary: string;
  /** Where a removed fork or a replaced transcript was kept. */
  keptAt: string | null;
  /** Every record this undo reverted (more than one for a fork + code restore), newest first. */
  parts?: Exclude<JournalRecord, { kind: 'undo' }>[];
}

type Undoable = Exclude<JournalRecord, { kind: 'undo' }>;

/**
 * Reverts the newest user action. An action of several records (fork + restore) is undone whole:
 * every part is checked first (a dry run of each), so either all go back or none does.
 */
export async function undoLatest(projectRoot: string, opts: { dryRun?: boolean; force?: boolean; now?: () => number } = {}): Promise<UndoResult> {
  const parts = latestAction(await readJournal(projectRoot));
  if (parts.length === 0) throw new RewindError('NOTHING_TO_UNDO', `nothing to undo in ${join(projectRoot, '.agent', 'rewind', 'journal.jsonl')}`);
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

async function moveAside(path: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, `${Date.now()}-${basename(path)}`);
  try {
    await rename(path, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await copyFile(path, target);
    await unlink(path);
  }
  return target;
}

/** Reverts one journal record (a fork, an in-place rewrite or a restore). */
async function undoRecord(projectRoot: string, r: Undoable, opts: { dryRun?: boolean; force?: boolean; now?: () => number }): Promise<UndoResult> {
  const now = opts.now ?? Date.now;
  const store = await (opts.dryRun ? Promise.resolve(join(projectRoot, '.agent', 'rewind')) : ensureStore(projectRoot));
  if (r.kind === 'fork') {
    const exists = await stat(r.forkPath).catch(() => null);
    if (exists) {
      const fp = await fingerprintFile(r.forkPath);
      if (!sameFingerprint(fp, r.result) && !opts.force) {
        throw new RewindError('UNDO_MISMATCH', `fork ${r.forkSessionId} changed since it was created (resumed?): pass --force to remove it anyway (it is kept under .agent/rewind/undone/)`);
      }
    }
    const summary = exists ? `Removed fork ${r.forkSessionId}` : `Fork ${r.forkSessionId} was already gone`;
    if (opts.dryRun) return { dryRun: true, undone: r, summary: `Would remove fork ${r.forkSessionId}`, keptAt: null };
    let keptAt: string | null = null;
    if (exists) keptAt = await moveAside(r.forkPath, join(store, 'undone'));
    if (r.fileHistoryDir) await removeFileHistoryDir(r.fileHistoryDir);
    await appendJournal(projectRoot, { kind: 'undo', id: randomUUID(), time: new Date(now()).toISOString(), undoes: r.id });
    return { dryRun: false, undone: r, summary, keptAt };
  }
  if (r.kind === 'in-place') {
    const backup = await stat(r.backupPath).catch(() => null);
    if (!backup) throw new RewindError('NOT_FOUND', `backup is missing: ${r.backupPath}`);
    const current = await stat(r.transcript).catch(() => null);
    let mismatch = false;
    if (current) {
      const fp = await fingerprintFile(r.transcript);
      mismatch = !sameFingerprint(fp, r.result);
      if (mismatch && !opts.force) {
        throw new RewindError('UNDO_MISMATCH', `transcript changed since the rewrite (the session went on): pass --force to put the backup back anyway (the current file is kept)`);
      }
    }
    if (opts.dryRun) return { dryRun: true, undone: r, summary: `Would put back ${r.backupPath}`, keptAt: null };
    let keptAt: string | null = null;
    if (current && mismatch) {
      keptAt = join(store, 'transcript-backup', `${r.sessionId}-before-undo-${new Date(now()).toISOString().replace(/[:.]/g, '-')}.jsonl`);
      await copyFile(r.transcript, keptAt);
    }
    await copyPrefixAtomic(r.backupPath, r.transcript, backup.size);
    await appendJournal(projectRoot, { kind: 'undo', id: randomUUID(), time: new Date(now()).toISOString(), undoes: r.id });
    return { dryRun: false, undone: r, summary: `Put back the transcript from ${r.backupPath}`, keptAt };
  }
  const { undoRestore } = await import('./store/restore.js');
  const plan = await undoRestore(projectRoot, r, { dryRun: opts.dryRun, force: opts.force, now });
  const n = plan.changes.length;
  if (opts.dryRun && plan.conflicts > 0 && !opts.force) {
    throw new RewindError('CONFLICT', `files changed since the restore: ${plan.changes.filter((c) => c.conflict).map((c) => c.path).slice(0, 5).join(', ')} (pass --force to undo anyway)`);
  }
  if (opts.dryRun) return { dryRun: true, undone: r, summary: `Would undo the restore of ${r.checkpointId}: ${plural(n, 'file')} change back`, keptAt: null };
  await appendJournal(projectRoot, { kind: 'undo', id: randomUUID(), time: new Date(now()).toISOString(), undoes: r.id });
  return { dryRun: false, undone: r, summary: `Undid the restore of ${r.checkpointId}: ${plural(n, 'file')} put back`, keptAt: null };
}
