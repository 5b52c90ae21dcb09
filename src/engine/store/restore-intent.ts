import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { processAlive } from '../io/process-alive.js';
import type { JournalRecord } from '../journal/record.js';
import { STORE_DIR, storeDir } from '../project.js';

/**
 * A restore (or the undo of one) in flight. Before its first rename, `.agent/rewind/pending/<id>.json`
 * names every path it will touch and every temp file it staged, and the journal gets an 'intent'
 * record; after its last rename the file says 'applied'. A run that finds one left by a process
 * that is gone rolls it back to the pre-restore checkpoint ('staged') or finishes its journal
 * ('applied'), and says so.
 */
export interface IntentSpec {
  op: 'restore' | 'undo-restore' | 'revert' | 'redo';
  preRestoreCheckpointId: string;
  /** Appended when a crash after the last rename is rolled forward (the op's own record). */
  onComplete: JournalRecord | null;
}

interface Pending extends IntentSpec {
  id: string;
  pid: number;
  time: string;
  phase: 'staged' | 'applied';
  paths: string[];
  temps: string[];
}

export interface Intent {
  id: string;
  file: string;
  pending: Pending;
}

const pendingDir = (root: string) => join(storeDir(root), 'pending');

export async function beginIntent(root: string, spec: IntentSpec, paths: string[], temps: string[]): Promise<Intent> {
  const { randomUUID } = await import('node:crypto');
  const id = randomUUID();
  const pending: Pending = { ...spec, id, pid: process.pid, time: new Date().toISOString(), phase: 'staged', paths, temps };
  // A real folder in the store, never a link a project shipped.
  const { ensureOwnDir } = await import('../io/own-file.js');
  await ensureOwnDir(root, join(STORE_DIR, 'pending'));
  const file = join(pendingDir(root), `${id}.json`);
  await writeBufferAtomic(file, JSON.stringify(pending));
  const { appendJournal } = await import('../journal/append.js');
  await appendJournal(root, { kind: 'intent', id, time: pending.time, op: spec.op, preRestoreCheckpointId: spec.preRestoreCheckpointId });
  return { id, file, pending };
}

export async function markApplied(root: string, tx: Intent): Promise<void> {
  tx.pending.phase = 'applied';
  await writeBufferAtomic(tx.file, JSON.stringify(tx.pending));
}

/** The op wrote its own journal record: the intent is closed. */
export async function finishIntent(root: string, tx: Intent): Promise<void> {
  const { appendJournal } = await import('../journal/append.js');
  await appendJournal(root, { kind: 'intent-end', id: tx.id, time: new Date().toISOString(), intent: tx.id, outcome: 'completed' });
  await unlink(tx.file).catch(() => undefined);
}

/** Nothing was renamed yet (staging failed): the intent ends, rolled back, with nothing to put back. */
export async function abandonIntent(root: string, tx: Intent): Promise<void> {
  for (const t of tx.pending.temps) await unlink(t).catch(() => undefined);
  await unlink(tx.file).catch(() => undefined);
  const { appendJournal } = await import('../journal/append.js');
  await appendJournal(root, { kind: 'intent-end', id: tx.id, time: new Date().toISOString(), intent: tx.id, outcome: 'rolled-back' });
}

/** Puts every path the intent names back as the pre-restore checkpoint has it. */
export async function rollBack(root: string, tx: Intent): Promise<number> {
  const [{ readManifest, latestManifest }, { currentTree, treeFromEntries }, { planRestore }, { objectStore }, { applyPlan }] = await Promise.all([
    import('./manifest.js'),
    import('./tree-state.js'),
    import('./restore-plan.js'),
    import('./checkpoint.js'),
    import('./restore-apply.js'),
  ]);
  for (const t of tx.pending.temps) await unlink(t).catch(() => undefined);
  const pre = await readManifest(root, tx.pending.preRestoreCheckpointId);
  const current = await currentTree(root, await latestManifest(root));
  const plan = planRestore({ target: treeFromEntries(pre.entries), current, expected: null, coverage: new Set(tx.pending.paths), leaveAlone: new Set(pre.skipped.map((s) => s.path)) });
  const objects = objectStore(root);
  await applyPlan(root, plan, (ref) => objects.read(ref), new Set(pre.entries.filter((e) => e[1] === 'd').map((e) => e[0])));
  const { appendJournal } = await import('../journal/append.js');
  await appendJournal(root, { kind: 'intent-end', id: tx.id, time: new Date().toISOString(), intent: tx.id, outcome: 'rolled-back' });
  await unlink(tx.file).catch(() => undefined);
  return plan.changes.length;
}

/** Our own pid counts as running: the service may have another restore in flight in this process. */
const alive = (pid: number) => pid === process.pid || processAlive(pid);

/**
 * Finishes what a killed restore left: rolled back when it had not finished its renames, rolled
 * forward (journal completed) when it had. Returns one line per intent for the user. Cheap when
 * there is nothing to do: one readdir of a directory that usually does not exist.
 */
export async function recoverPending(root: string): Promise<string[]> {
  const names = await readdir(pendingDir(root)).catch(() => [] as string[]);
  const out: string[] = [];
  if (names.length) {
    const { cleanStaleTemps } = await import('../io/atomic-write.js');
    await cleanStaleTemps(pendingDir(root));
  }
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = join(pendingDir(root), name);
    let pending: Pending;
    try {
      // Non-blocking, no link: a FIFO shipped as an intent hung every restore, undo and checkpoint.
      const { readOwnText } = await import('../io/own-file.js');
      pending = JSON.parse((await readOwnText(file)) ?? '') as Pending;
    } catch {
      continue;
    }
    if (typeof pending.pid !== 'number' || alive(pending.pid)) continue; // still running
    if (!Array.isArray(pending.paths) || !Array.isArray(pending.temps)) continue;
    // Temp paths are only ever ours: inside the project, with our suffix.
    pending.temps = pending.temps.filter((t) => typeof t === 'string' && t.startsWith(root) && t.endsWith('.rewind-tmp') && !t.includes('/../'));
    const { checkRelPath } = await import('./safe-path.js');
    pending.paths.forEach((p) => checkRelPath(p));
    const tx: Intent = { id: pending.id, file, pending };
    const what = pending.op === 'undo-restore' ? 'undo of a restore' : pending.op === 'revert' ? "revert of a prompt's changes" : pending.op === 'redo' ? 'redo' : 'restore';
    if (pending.phase === 'applied') {
      for (const t of pending.temps) await unlink(t).catch(() => undefined);
      const { readJournal, appendJournal } = await import('../journal/record.js');
      const done = pending.onComplete;
      if (done && !(await readJournal(root)).some((r) => r.id === done.id)) await appendJournal(root, done);
      await finishIntent(root, tx);
      out.push(`an interrupted ${what} (${pending.time}) had written every file: its journal entry is completed`);
    } else {
      const n = await rollBack(root, tx);
      out.push(`an interrupted ${what} (${pending.time}) was rolled back: ${n} path${n === 1 ? '' : 's'} put back as they were`);
    }
  }
  return out;
}
