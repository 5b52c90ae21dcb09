import { mkdir, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { RevertedPrompt, RewindOutcome, RewindRequest } from '../adapter.js';
import { isRewindError, RewindError } from '../../errors.js';
import { requireInside } from '../../guard.js';
import { writeFileAtomic } from '../../io/atomic-write.js';
import { fingerprintFile } from '../../io/fingerprint.js';
import { inPlaceLocked } from '../../io/transcript-lock.js';
import { backupPathFor, writerSessionId } from '../backup-path.js';
import { carriedWarning, holdTranscript, replaceInPlace, unchangedSince, type HeldTranscript } from '../in-place-write.js';
import { sessionJournalRoot } from '../../project.js';
import { timelineOfThread } from './rollout.js';
import { promptsOfTimeline, statementOfPlan } from '../statement-of-plan.js';
import { homeOfRollout, readThread, rolloutName, type Thread, type ThreadLine } from './thread.js';
import { clearThreadProjection, projectionKeys, THREAD_HISTORY_DB } from './thread-history.js';
import { uuidv7 } from './uuid7.js';
import { unjudgedReason, type JudgedVersions } from '../judged.js';
import judged from './judged.json' with { type: 'json' };

const JUDGED = judged as JudgedVersions;

/**
 * Going back in a Codex thread (FORMATS.md §2, judged by the real CLI in test/conformance):
 * - fork: a new self-contained rollout holding the thread's history before the dropped turn's
 *   `task_started` (inherited lines of a reference fork or revert included), with a new uuid v7 in
 *   its name and its `session_meta`, under `sessions/YYYY/MM/DD/` so `codex resume <id>` finds it;
 * - in-place: the thread's current file is replaced (atomically, after a backup) by the same
 *   self-contained history under the same id and path, which `threads.rollout_path` already names.
 * Both are journaled for `rewind-app undo`.
 */

import { DEFAULT_LIVE_WINDOW_MS } from '../live-window.js';

export { DEFAULT_LIVE_WINDOW_MS };
const KNOWN_HISTORY_MODES = new Set([undefined, 'paginated']);
const REFERENCE_KEYS = ['forked_from_id', 'forked_from_ordinal_exclusive', 'history_base'];

/** Why this rollout must not be rewritten (a layout newer than the one we checked), else null. */
export function unknownFormat(thread: Thread): string | null {
  const meta = thread.meta;
  if (!meta) return 'it has no session_meta line (not a rollout Codex can resume): shown, not rewritten';
  // The versions judged right are data (judged.json); a newer layout is read, never rewritten.
  const unjudgedWhy = unjudgedReason('Codex CLI', typeof meta.cli_version === 'string' ? meta.cli_version : null, JUDGED);
  if (unjudgedWhy) return unjudgedWhy;
  if (!KNOWN_HISTORY_MODES.has(meta.history_mode as string | undefined)) return `its history_mode "${String(meta.history_mode)}" is unknown to Rewind: shown, not rewritten`;
  if (thread.missingBase) return `it continues thread ${thread.missingBase}, whose rollout is not on this machine: a fork would miss its start`;
  return null;
}

export async function readOnlyReason(path: string): Promise<string | null> {
  const reason = unknownFormat(await readThread(path));
  return reason ? `This Codex session is read only: ${reason}` : null;
}

/** `rollout-2026-01-02T03-04-05-<id>.jsonl` under `sessions/YYYY/MM/DD/` of local time, as Codex names them. */
function forkLocation(home: string, id: string, now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const day = [String(now.getFullYear()), p(now.getMonth() + 1), p(now.getDate())];
  const time = `${day.join('-')}T${p(now.getHours())}-${p(now.getMinutes())}-${p(now.getSeconds())}`;
  return join(home, 'sessions', ...day, `rollout-${time}-${id}.jsonl`);
}

/** The first line of the new file: the thread's `session_meta` under `id`, no longer referencing another file. */
function metaLine(thread: Thread, id: string, now: Date): string {
  const payload: Record<string, unknown> = { ...(thread.rootMeta ?? {}), ...(thread.meta ?? {}), id, timestamp: now.toISOString() };
  if ('session_id' in payload) payload.session_id = id;
  for (const k of REFERENCE_KEYS) delete payload[k];
  const ordinals = thread.lines.some((l) => typeof l.rec.ordinal === 'number');
  return JSON.stringify(ordinals ? { timestamp: now.toISOString(), ordinal: 0, type: 'session_meta', payload } : { timestamp: now.toISOString(), type: 'session_meta', payload });
}

/**
 * The lock Codex keeps while a process holds a thread: `$CODEX_HOME/thread-writer-locks/<id>.lock`
 * with an exclusive flock (its app-server daemon, up to ~60 s after the TUI quits; FORMATS.md §2d).
 * The file left by a crash is not held: not a writer. Unknown (no way to probe): counted as held.
 */
export async function writerLock(rollout: string, threadId: string): Promise<string | null> {
  const home = homeOfRollout(rollout);
  if (!home) return null;
  const lock = join(home, 'thread-writer-locks', `${threadId}.lock`);
  if (!(await stat(lock).catch(() => null))) return null;
  const { lockHolder } = await import('../../io/lock-probe.js');
  const holder = await lockHolder(lock);
  return holder === null || holder.held ? lock : null;
}

export function rewindRollout(req: RewindRequest & { now?: () => number }): Promise<RewindOutcome> {
  // The same lock as every in-place rewrite: never two Rewinds writing one rollout.
  return inPlaceLocked(req, () => rewindRolloutUnlocked(req));
}

async function rewindRolloutUnlocked(req: RewindRequest & { now?: () => number }): Promise<RewindOutcome> {
  // Held open from before the read to the end: the in-place writer checks the path against it and
  // carries over what Codex appends to the old inode.
  const held = await holdTranscript(req.transcriptPath).catch((e: unknown) => {
    throw isRewindError(e) && e.code === 'INVALID_TRANSCRIPT' ? new RewindError('NO_TRANSCRIPT', `transcript not found: ${req.transcriptPath}`) : e;
  });
  try {
    return await rewriteRollout(req, held);
  } finally {
    await held.fh.close();
  }
}

/** Where a rewind cuts a thread: the prompt it drops (with every later one), what it keeps, what it hands back. */
export interface CutPlan {
  timeline: ReturnType<typeof timelineOfThread>;
  /** Index (in the thread's prompts) of the first prompt dropped. */
  at: number;
  /** The cut, as a byte offset in the thread read as one file. */
  cut: number;
  reverted: RevertedPrompt[];
  kept: ThreadLine[];
  /** The id inside the file: it names the backup and the writer lock. */
  sessionId: string;
  statement: ReturnType<typeof statementOfPlan>;
}

/** The cut for `req` (back n, or before a prompt) in a thread that may be rewritten; throws what the user must hear. */
export function planCut(req: RewindRequest, thread: Thread): CutPlan {
  const reason = unknownFormat(thread);
  if (reason) throw new RewindError('UNSUPPORTED', `this Codex session is read only: ${reason}`);
  const timeline = timelineOfThread(thread);
  const prompts = timeline.prompts;
  let at: number;
  if (req.promptUuid) {
    at = prompts.findIndex((p) => p.uuid === req.promptUuid);
    if (at === -1) throw new RewindError('NOT_FOUND', `no prompt ${req.promptUuid} in this session`);
  } else {
    const n = req.n ?? 1;
    if (n > prompts.length) throw new RewindError('NOT_ENOUGH_PROMPTS', `the session has ${prompts.length} prompt${prompts.length === 1 ? '' : 's'}, fewer than ${n}`);
    at = prompts.length - n;
  }
  const cut = prompts[at]!.byteOffset;
  const reverted: RevertedPrompt[] = prompts.slice(at).map((p) => ({ uuid: p.uuid, text: p.text, images: p.images, timestamp: p.timestamp, offset: p.byteOffset }));
  const kept = thread.lines.filter((l) => l.vOffset < cut);
  const sessionId = writerSessionId(timeline.session.id, req.transcriptPath);
  // A thread is one line of turns: the result holds exactly the prompts before the cut, in order
  // (both modes), and a resume sends those.
  const statement = statementOfPlan({
    mode: req.mode,
    before: promptsOfTimeline(prompts),
    result: { holds: new Set(prompts.slice(0, at).map((p) => p.uuid)), live: prompts.slice(0, at).map((p) => p.uuid) },
    target: prompts[at]!.uuid,
    onTargetBranch: () => false,
    handedBack: reverted.map((p) => p.uuid),
    leftOutMessages: 0,
  });
  return { timeline, at, cut, reverted, kept, sessionId, statement };
}

/** The thread as one self-contained file (its `session_meta` under `id`, then `lines`): what a fork, an in-place rewrite or a backup holds. */
export function selfContained(thread: Thread, lines: readonly ThreadLine[], id: string, stamp: Date): Buffer {
  const chunks: Buffer[] = [Buffer.from(`${metaLine(thread, id, stamp)}\n`)];
  for (const l of lines) chunks.push(l.bytes, Buffer.from('\n'));
  return Buffer.concat(chunks);
}

async function rewriteRollout(req: RewindRequest & { now?: () => number }, held: HeldTranscript): Promise<RewindOutcome> {
  const now = req.now ?? Date.now;
  const st = await held.fh.stat();
  const thread = await readThread(req.transcriptPath);
  const { timeline, cut, reverted, kept, sessionId, statement } = planCut(req, thread);
  // The session's folder holds the journal only when it exists here: never create a stranger's path.
  const cwd = timeline.session.cwd;
  const projectRoot = req.projectRoot ?? (await sessionJournalRoot(cwd, req.here)).root;
  const warnings: string[] = [];
  const stamp = new Date(now());
  const newId = req.mode === 'fork' ? uuidv7(now()) : sessionId;
  const header = metaLine(thread, newId, stamp);
  const resultSize = Buffer.byteLength(header) + 1 + kept.reduce((s, l) => s + l.bytes.length + 1, 0);
  const base = {
    mode: req.mode,
    dryRun: !!req.dryRun,
    transcript: req.transcriptPath,
    sessionId,
    boundaryOffset: cut,
    resultSize,
    droppedMessages: 0,
    prompts: reverted,
    projectRoot,
    bytesScanned: thread.chain.length === 1 ? thread.size : resultSize,
    warnings,
    statement,
  };

  if (req.mode === 'in-place') {
    // Codex appends to the file it holds: rewriting under it would lose its next lines.
    const lock = await writerLock(req.transcriptPath, sessionId);
    if (lock && !req.force) {
      const msg = `Codex holds this thread (${lock}): stop it first, or pass --force if no Codex is running`;
      if (req.dryRun) warnings.push(msg);
      else throw new RewindError('TRANSCRIPT_LIVE', msg);
    }
    const age = now() - st.mtimeMs;
    const window = req.liveWindowMs ?? DEFAULT_LIVE_WINDOW_MS;
    if (!req.force && age < window) {
      const msg = `the rollout was written ${Math.max(0, Math.round(age / 1000))}s ago: Codex may still be running`;
      if (req.dryRun) warnings.push(msg);
      else throw new RewindError('TRANSCRIPT_LIVE', `${msg} (stop it first, or pass --force)`);
    }
  }
  if (req.dryRun) {
    const backupPath = req.mode === 'in-place' && projectRoot ? backupPathFor(projectRoot, sessionId, now()) : null;
    return { ...base, forkSessionId: null, forkPath: null, backupPath, journalId: null };
  }

  const body = async (out: FileHandle): Promise<void> => {
    await out.writeFile(selfContained(thread, kept, newId, stamp));
    // The source rewritten (not only grown) while we read means a stale cut; the in-place writer
    // looks again, at the path, right before its rename.
    if ((await unchangedSince(held)) === 'changed') throw new RewindError('TRANSCRIPT_CHANGED', 'the rollout changed while we worked: nothing was written, run again when Codex is idle');
  };
  const { randomUUID } = await import('node:crypto');
  const journalId = randomUUID();
  const { appendJournal } = await import('../../journal/append.js');

  if (req.mode === 'fork') {
    const home = homeOfRollout(req.transcriptPath) ?? req.agentRoot ?? dirname(req.transcriptPath);
    const forkPath = homeOfRollout(req.transcriptPath) || req.agentRoot ? forkLocation(home, newId, stamp) : join(dirname(req.transcriptPath), basename(forkLocation(home, newId, stamp)));
    // A fork is a rollout where Codex keeps them (or beside the original), never anywhere else.
    await requireInside([resolve(home), resolve(dirname(req.transcriptPath))], resolve(forkPath), 'a fork');
    await mkdir(dirname(forkPath), { recursive: true });
    await writeFileAtomic(forkPath, body);
    const result = await fingerprintFile(forkPath);
    if (projectRoot) {
      await appendJournal(projectRoot, { kind: 'fork', id: journalId, time: stamp.toISOString(), transcript: req.transcriptPath, sessionId, forkPath, forkSessionId: newId, fileHistoryDir: null, result, boundaryOffset: cut, prompts: reverted.map((p) => p.uuid), ...(req.promptNumber ? { promptNumber: req.promptNumber } : {}), ...(req.journalGroup ? { group: req.journalGroup } : {}) });
    } else warnings.push('no project folder known: this fork is not in an undo journal');
    return { ...base, forkSessionId: newId, forkPath, backupPath: null, journalId: projectRoot ? journalId : null };
  }

  if (!projectRoot) throw new RewindError('USAGE', 'no project folder for the backup: pass --project DIR');
  // Claude's writer: a hard-linked backup, a last look at the path before the rename, carry-over.
  const { backupPath, original, result, carried } = await replaceInPlace({ held, projectRoot, sessionId, time: now(), write: body });
  warnings.push(...carriedWarning(carried));
  // Codex's turn list answers from its projection of the rollout: dropped, it is rebuilt from the new file.
  const home = homeOfRollout(req.transcriptPath);
  if (home) {
    const projection = await clearThreadProjection(home, projectionKeys(sessionId, rolloutName(req.transcriptPath).generation)).catch((e: unknown) => ({ busy: `Codex's turn list in ${THREAD_HISTORY_DB} was not cleared (${(e as Error).message}): it may show the dropped turns` }));
    if ('busy' in projection) warnings.push(projection.busy);
  }
  await appendJournal(projectRoot, { kind: 'in-place', id: journalId, time: stamp.toISOString(), transcript: req.transcriptPath, sessionId, backupPath, original, result, boundaryOffset: cut, prompts: reverted.map((p) => p.uuid), ...(req.promptNumber ? { promptNumber: req.promptNumber } : {}), ...(req.journalGroup ? { group: req.journalGroup } : {}) });
  return { ...base, forkSessionId: null, forkPath: null, backupPath, journalId };
}
