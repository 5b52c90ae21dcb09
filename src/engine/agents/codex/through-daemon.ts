import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { assertOwnFileSlot } from '../../io/own-file.js';
import type { RewindOutcome, RewindRequest } from '../adapter.js';
import type { OpenSession } from '../../../shared/session-schema.js';
import { RewindError } from '../../errors.js';
import { writeFileAtomic } from '../../io/atomic-write.js';
import { fingerprintFile } from '../../io/fingerprint.js';
import { inPlaceLocked } from '../../io/transcript-lock.js';
import { ensureStore, sessionJournalRoot } from '../../project.js';
import { openBusyRefusal, throughAgentNote, throughAgentUndoNote } from '../../../shared/wording.js';
import { backupPathFor } from '../backup-path.js';
import { connectDaemon, type CodexDaemon, type DaemonTurn } from './daemon.js';
import { currentGenerations, listRolloutFiles } from './discover.js';
import { planCut, selfContained } from './rewind.js';
import { timelineOfThread } from './rollout.js';
import { homeOfRollout, readThread, rolloutName } from './thread.js';

/**
 * An in-place rewind of a Codex thread its running daemon holds (FORMATS.md §2d, "Handing a
 * rewound session back"): rewriting the rollout under the daemon would be lost (it appends to the
 * file it holds) and the open TUI would go on with the dropped turns in memory, so the daemon does
 * it: `thread/revert {threadId, beforeTurnId}` writes a new generation of the thread
 * (`rollout-<ts>-<id>_<generation>.jsonl`, `history_base` naming the kept prefix) and the TUI's next
 * prompt goes to the model without the dropped turns.
 *
 * Checked before: the daemon's turns are the rollout's (the same prompts, in the same turns) and
 * the thread is idle. Checked after: the new generation, read back from disk, and the daemon's turns
 * hold exactly the kept prompts. Journaled as an in-place rewrite of the new generation, backed up
 * by the whole thread before the revert as one self-contained file: Codex has no way to put
 * reverted turns back, so `undo` puts that file in place once Codex has let go of the thread.
 */

const HOW = 'thread/revert on its app-server daemon';
const UNDO_HOW =
  'Codex cannot put reverted turns back; rewind-app undo puts the whole thread back from Rewind\'s backup once Codex lets go of it (quit the TUI, then its daemon unloads the thread within about a minute, or run codex app-server daemon stop), and is refused until then';

const textsOf = (turns: DaemonTurn[]) => turns.flatMap((t) => t.prompts);
const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The thread's file Codex writes now (its newest generation), by id. */
async function currentFile(home: string, threadId: string): Promise<string | null> {
  const files = (await listRolloutFiles(home)).filter((f) => rolloutName(f.path).threadId === threadId);
  return (await currentGenerations(files))[0]?.path ?? null;
}

/** The daemon's turns, as prompt texts, must be the rollout's: else the plan would not be what Codex drops. */
function sameView(turns: DaemonTurn[], prompts: readonly { text: string }[]): boolean {
  return same(textsOf(turns), prompts.map((p) => p.text));
}

/** The rewind through the daemon holding the thread; null when no daemon of this `$CODEX_HOME` answers for it (the caller refuses). */
export async function revertThroughDaemon(req: RewindRequest & { now?: () => number }, open: OpenSession): Promise<RewindOutcome | null> {
  if (req.mode !== 'in-place') return null;
  const home = homeOfRollout(req.transcriptPath);
  const threadId = rolloutName(req.transcriptPath).threadId;
  if (!home || !threadId) return null;
  const daemon = await connectDaemon(home);
  if (!daemon) return null;
  try {
    // A thread the daemon has not loaded is held by another process: not ours to change through it.
    const status = await daemon.status(threadId);
    if (status === null || status === 'notLoaded') return null;
    if (status === 'active') throw new RewindError('SESSION_OPEN', openBusyRefusal('Codex CLI', open.pid));
    return await inPlaceLocked(req, () => revert(req, open, daemon, home, threadId));
  } finally {
    daemon.close();
  }
}

async function revert(req: RewindRequest & { now?: () => number }, open: OpenSession, daemon: CodexDaemon, home: string, threadId: string): Promise<RewindOutcome> {
  const now = req.now ?? Date.now;
  const thread = await readThread(req.transcriptPath);
  if (req.expectSize !== undefined && thread.size !== req.expectSize) throw new RewindError('TRANSCRIPT_CHANGED', 'the session changed since the preview: nothing was changed, look again');
  const { timeline, at, cut, reverted, kept, sessionId, statement } = planCut(req, thread);
  const prompts = timeline.prompts;
  const turnId = prompts[at]!.promptId;
  if (!turnId) throw new RewindError('UNSUPPORTED', `Codex CLI (pid ${open.pid}) has this session open and its rollout names no turn for that prompt: fork it instead, or quit Codex and rewrite`);
  const before = await daemon.turns(threadId);
  if (!sameView(before, prompts) || !before.some((t) => t.id === turnId)) {
    throw new RewindError('TRANSCRIPT_CHANGED', `Codex CLI (pid ${open.pid}) has a different view of this session than its rollout (a turn still being written?): nothing was changed, look again`);
  }
  const projectRoot = req.projectRoot ?? (await sessionJournalRoot(timeline.session.cwd, req.here)).root;
  const warnings = [throughAgentNote('Codex CLI', open.pid, HOW), throughAgentUndoNote('Codex CLI', UNDO_HOW)];
  const keptTexts = prompts.slice(0, at).map((p) => p.text);
  const stamp = new Date(now());
  const backupPath = projectRoot ? backupPathFor(projectRoot, sessionId, now()) : null;
  const base = {
    mode: req.mode,
    transcript: req.transcriptPath,
    sessionId,
    boundaryOffset: cut,
    resultSize: selfContained(thread, kept, sessionId, stamp).length,
    droppedMessages: 0,
    prompts: reverted,
    projectRoot,
    bytesScanned: thread.size,
    warnings,
    statement,
    forkSessionId: null,
    forkPath: null,
    // Codex said the thread is idle (its lock file alone cannot tell).
    open: { ...open, status: 'idle' as const },
    handBack: throughAgentNote('Codex CLI', open.pid, HOW),
  };
  if (req.dryRun) return { ...base, dryRun: true, backupPath, journalId: null };
  if (!projectRoot || !backupPath) throw new RewindError('USAGE', 'no project folder for the backup: pass --project DIR');

  // The whole thread before the revert, as one file: what undo puts back.
  await ensureStore(projectRoot);
  await mkdir(dirname(backupPath), { recursive: true, mode: 0o700 });
  // Names in the store: never written through a link a project put there.
  await assertOwnFileSlot(backupPath);
  await writeFileAtomic(backupPath, (fh) => fh.writeFile(selfContained(thread, thread.lines, sessionId, stamp)).then(() => undefined), { mode: 0o600 });
  // What an undo puts at the generation's path: the backup (the journal's `original` is what undo leaves there).
  const original = await fingerprintFile(backupPath);
  // Asked again right before: a turn started since the first look is not reverted under Codex.
  if ((await daemon.status(threadId)) === 'active' || (await daemon.turns(threadId)).some((t) => t.status === 'inProgress')) {
    throw new RewindError('SESSION_OPEN', `${openBusyRefusal('Codex CLI', open.pid)} (nothing was reverted; the backup made for it is ${backupPath})`);
  }
  const answer = await daemon.revert(threadId, turnId);
  const written = answer.path ?? (await currentFile(home, threadId));
  // Only a rollout under this home's sessions/ is read back and journaled.
  if (!written || homeOfRollout(written) === null || resolve(homeOfRollout(written)!) !== resolve(home)) {
    throw new RewindError('INTERNAL', `Codex reverted the thread but named no rollout of ${home} for it: see rewind-app timeline; the thread before the revert is kept in ${backupPath}`);
  }
  const result = await fingerprintFile(written);
  const { randomUUID } = await import('node:crypto');
  const journalId = randomUUID();
  const { appendJournal } = await import('../../journal/append.js');
  await appendJournal(projectRoot, { kind: 'in-place', id: journalId, time: stamp.toISOString(), transcript: written, sessionId, backupPath, original, result, boundaryOffset: cut, prompts: reverted.map((p) => p.uuid), ...(req.promptNumber ? { promptNumber: req.promptNumber } : {}), ...(req.journalGroup ? { group: req.journalGroup } : {}) });

  // Read back: the generation on disk and the daemon's turns hold exactly the kept prompts.
  const after = timelineOfThread(await readThread(written)).prompts.map((p) => p.text);
  const turns = textsOf(await daemon.turns(threadId));
  if (!same(after, keptTexts) || !same(turns, keptTexts)) {
    throw new RewindError('INTERNAL', `Codex's revert does not hold exactly the kept prompts (file: ${after.length}, Codex: ${turns.length}, expected ${keptTexts.length}): journaled, rewind-app undo puts the thread back once Codex lets go of it`);
  }
  return { ...base, transcript: written, dryRun: false, resultSize: result.size, backupPath, journalId };
}
