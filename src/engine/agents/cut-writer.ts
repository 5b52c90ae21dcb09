import { mkdir, open, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { RewindError } from '../errors.js';
import { requireInside } from '../guard.js';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { fingerprintFile } from '../io/fingerprint.js';
import { inPlaceLocked } from '../io/transcript-lock.js';
import { ensureStore } from '../project.js';
import type { RevertedPrompt, RewindOutcome, RewindRequest } from './adapter.js';
import { backupPathFor, writerSessionId } from './backup-path.js';
import { DEFAULT_LIVE_WINDOW_MS } from './live-window.js';
import { carriedWarning, heldBytes, holdTranscript, replaceInPlace, unchangedSince, type HeldTranscript } from './in-place-write.js';
import type { RewindMode, RewindStatement } from './adapter.js';

/** Which prompt to cut before: n back along the live path, or one prompt by id (any branch). */
export interface CutTarget {
  n?: number;
  promptUuid?: string;
}

/**
 * What a rewind of one session file will write, decided from the file's bytes alone (pure). The
 * writer below does every check and write; agents differ only in this plan.
 */
export interface CutPlan {
  sessionId: string;
  cwd: string | null;
  /** Reverted prompts, oldest first. */
  prompts: RevertedPrompt[];
  /** Where the kept history ends in the original file. */
  boundaryOffset: number;
  /** Messages of abandoned branches left out of the result. */
  droppedMessages: number;
  /** The fork's path and bytes under a new session id. */
  fork(newId: string): { path: string; bytes: Buffer };
  /** A fork goes in its own new folder under this one (Copilot's `session-state/<id>/`); absent: beside the original. */
  forkRoot?: string;
  /** The whole new content of the file for an in-place rewind. */
  inPlace: Buffer;
  /**
   * When set, `inPlace` is the file plus these bytes and an in-place rewind appends them (the file
   * keeps its inode and every byte it had) instead of replacing the file.
   */
  append?: Buffer;
  /** What the result keeps, leaves out and hands back, read off the bytes this plan writes in that mode. */
  statementFor?: (mode: RewindMode) => RewindStatement;
  /** The agent keeps file backups in `<this>/file-history/<sessionId>/`: a fork gets them under its own id. */
  fileHistoryRoot?: string | null;
  warnings: string[];
}

export type CutPlanner = (buf: Buffer, path: string, target: CutTarget) => CutPlan;

/** Which prompt a target names among the live ones (oldest first), with the usual one-line errors. */
export function pickTarget<P extends { uuid: string }>(live: P[], all: P[], target: CutTarget): P {
  if (target.promptUuid) {
    const p = all.find((x) => x.uuid === target.promptUuid);
    if (!p) throw new RewindError('NOT_FOUND', `no prompt ${target.promptUuid} in this session`);
    return p;
  }
  const n = target.n ?? 1;
  if (live.length === 0) throw new RewindError('NOT_ENOUGH_PROMPTS', 'this session has no prompts yet');
  if (n > live.length) throw new RewindError('NOT_ENOUGH_PROMPTS', `cannot go back ${n}: the session has only ${live.length} prompt${live.length === 1 ? '' : 's'} on its live path`);
  if (n === live.length) throw new RewindError('NOT_ENOUGH_PROMPTS', `cannot go back ${n}: that is every prompt on the live path, nothing would be left to resume (start a new session instead)`);
  return live[live.length - n]!;
}

/** Appends to the file only while it is still exactly `before` (the check and the write share one handle). */
async function appendIfUnchanged(path: string, before: Buffer, bytes: Buffer): Promise<void> {
  const fh = await open(path, 'a+');
  try {
    const now = Buffer.alloc((await fh.stat()).size);
    await fh.read(now, 0, now.length, 0);
    if (!now.equals(before)) throw new RewindError('TRANSCRIPT_CHANGED', 'transcript changed while we were writing: nothing was appended, run again when the agent is idle');
    await fh.appendFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Forks or rewrites one session file by a plan: validated before anything is written, written
 * atomically, a backup before every in-place rewrite, and a journal record so `undo` puts it back.
 */
export function rewindByPlan(planner: CutPlanner, opts: RewindRequest & { now?: () => number; beforeRevalidate?: () => Promise<void> }): Promise<RewindOutcome> {
  // Two in-place rewrites of one file at once would each write over the other's cut.
  return inPlaceLocked(opts, () => rewindByPlanUnlocked(planner, opts));
}

async function rewindByPlanUnlocked(planner: CutPlanner, opts: RewindRequest & { now?: () => number; beforeRevalidate?: () => Promise<void> }): Promise<RewindOutcome> {
  // Planned from bytes read through one handle, kept open to the end: the in-place writer checks
  // the path against it and carries over what reaches the old inode.
  const held = await holdTranscript(opts.transcriptPath);
  try {
    return await writeByPlan(planner, opts, held);
  } finally {
    await held.fh.close();
  }
}

async function writeByPlan(planner: CutPlanner, opts: RewindRequest & { now?: () => number; beforeRevalidate?: () => Promise<void> }, held: HeldTranscript): Promise<RewindOutcome> {
  const now = opts.now ?? Date.now;
  const path = opts.transcriptPath;
  if (held.size === 0) throw new RewindError('NOT_ENOUGH_PROMPTS', `transcript is empty: ${path}`);
  const buf = await heldBytes(held);
  const plan = planner(buf, path, opts.promptUuid ? { promptUuid: opts.promptUuid } : { n: opts.n ?? 1 });
  // The id inside the file names the backup and the fork's file history: an id, or nothing is written.
  const sessionId = writerSessionId(plan.sessionId, path);
  const warnings = [...plan.warnings];
  const statement = plan.statementFor?.(opts.mode);
  // The session's own folder only when it is on this machine: never create a folder we were not given.
  const projectRoot = opts.projectRoot ?? (await (await import('../project.js')).sessionJournalRoot(plan.cwd, opts.here)).root;
  const base = {
    mode: opts.mode,
    dryRun: !!opts.dryRun,
    transcript: path,
    sessionId,
    boundaryOffset: plan.boundaryOffset,
    resultSize: plan.inPlace.length,
    droppedMessages: plan.droppedMessages,
    prompts: plan.prompts,
    projectRoot,
    bytesScanned: buf.length,
    warnings,
    ...(statement ? { statement } : {}),
  };
  if (opts.mode === 'in-place') {
    const age = now() - (await held.fh.stat()).mtimeMs;
    const window = opts.liveWindowMs ?? DEFAULT_LIVE_WINDOW_MS;
    const secs = Math.max(0, Math.round(age / 1000));
    if (!opts.force && age < window) {
      if (!opts.dryRun) throw new RewindError('TRANSCRIPT_LIVE', `transcript was written ${secs}s ago: the agent may still be running (stop it first, or pass --force)`);
      warnings.push(`the transcript was written ${secs}s ago: the agent may still be running`);
    }
  }
  if (opts.dryRun) {
    const backupPath = opts.mode === 'in-place' && projectRoot ? backupPathFor(projectRoot, sessionId, now()) : null;
    return { ...base, forkSessionId: null, forkPath: null, backupPath, journalId: null };
  }
  await opts.beforeRevalidate?.();
  const state = await unchangedSince(held);
  if (state === 'changed') throw new RewindError('TRANSCRIPT_CHANGED', `transcript changed while we worked: nothing was written, run again: ${path}`);
  if (state === 'grew' && opts.mode === 'in-place') throw new RewindError('TRANSCRIPT_LIVE', 'transcript grew while we worked: the agent is running (stop it first)');

  const { randomUUID } = await import('node:crypto');
  const { appendJournal } = await import('../journal/append.js');
  const journalId = randomUUID();
  const time = new Date(now()).toISOString();
  const prompts = plan.prompts.map((p) => p.uuid);
  // One user action (a fork and its code restore) is one group: one undo reverts both.
  const extra = { ...(opts.journalGroup ? { group: opts.journalGroup } : {}), ...(opts.promptNumber ? { promptNumber: opts.promptNumber } : {}) };
  if (opts.mode === 'fork') {
    const forkSessionId = randomUUID();
    const fork = plan.fork(forkSessionId);
    // A fork is a new session file beside the original, named by its new id (or in a new folder so named).
    await requireInside([resolve(plan.forkRoot ?? dirname(path))], resolve(fork.path), 'a fork');
    if (plan.forkRoot) await mkdir(dirname(fork.path), { mode: 0o700 });
    await writeBufferAtomic(fork.path, fork.bytes);
    const { linkFileHistory } = await import('./file-history-links.js');
    const fileHistoryDir = plan.fileHistoryRoot ? await linkFileHistory(plan.fileHistoryRoot, sessionId, forkSessionId) : null;
    if (projectRoot) {
      const result = await fingerprintFile(fork.path);
      await appendJournal(projectRoot, { kind: 'fork', id: journalId, time, transcript: path, sessionId, forkPath: fork.path, forkSessionId, fileHistoryDir, result, boundaryOffset: plan.boundaryOffset, prompts, ...extra });
    } else {
      warnings.push('no project folder known: this fork is not in an undo journal');
    }
    return { ...base, forkSessionId, forkPath: fork.path, backupPath: null, journalId: projectRoot ? journalId : null };
  }
  if (!projectRoot) throw new RewindError('USAGE', 'no project folder for the backup: pass --project DIR');
  if (plan.append) {
    // The file keeps its inode and every byte: the backup is a copy of the bytes we planned from
    // (a hard link would grow with the append), and undo puts back exactly those.
    const backupPath = backupPathFor(projectRoot, sessionId, now());
    await ensureStore(projectRoot);
    await mkdir(dirname(backupPath), { recursive: true, mode: 0o700 });
    await writeBufferAtomic(backupPath, buf);
    const original = await fingerprintFile(backupPath);
    await appendIfUnchanged(path, buf, plan.append).catch(async (e: unknown) => {
      await unlink(backupPath).catch(() => undefined);
      throw e;
    });
    const result = await fingerprintFile(path);
    await appendJournal(projectRoot, { kind: 'in-place', id: journalId, time, transcript: path, sessionId, backupPath, original, result, boundaryOffset: plan.boundaryOffset, prompts, ...extra });
    return { ...base, forkSessionId: null, forkPath: null, backupPath, journalId };
  }
  // Claude's writer: a hard-linked backup, a last look at the path before the rename, carry-over.
  const out = await replaceInPlace({ held, projectRoot, sessionId, time: now(), write: (fh) => fh.writeFile(plan.inPlace) });
  warnings.push(...carriedWarning(out.carried));
  await appendJournal(projectRoot, { kind: 'in-place', id: journalId, time, transcript: path, sessionId, backupPath: out.backupPath, original: out.original, result: out.result, boundaryOffset: plan.boundaryOffset, prompts, ...extra });
  return { ...base, forkSessionId: null, forkPath: null, backupPath: out.backupPath, journalId };
}
