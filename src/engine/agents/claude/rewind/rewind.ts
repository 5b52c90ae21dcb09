import type { RewindMode } from '../../adapter.js';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RewindError } from '../../../errors.js';
import { cleanStaleTemps, copyPrefixAtomic, writeFileAtomic } from '../../../io/atomic-write.js';
import { isSafeId } from '../../../guard.js';
import { inPlaceLocked } from '../../../io/transcript-lock.js';
import { copyRanges } from '../../../io/copy-ranges.js';
import type { Fingerprint } from '../../../io/fingerprint.js';
import { backupPathFor } from '../../backup-path.js';
import { sessionJournalRoot } from '../../../project.js';
import { linkFileHistory } from '../../file-history-links.js';
import { claudeRootOfTranscript } from '../paths.js';
import { keptRanges, planRewind, type RewindPlan } from './plan.js';
import { scanTail, type RevertedPrompt, type TailScan } from './tail-scan.js';
import { rewindStatement, type RewindStatement } from './statement.js';
import { agentWritingSentence } from '../../../../shared/wording.js';
import { DEFAULT_LIVE_WINDOW_MS } from '../../live-window.js';

export type { RewindMode };

export interface RewindOptions {
  transcriptPath: string;
  /** How many prompts back along the live path, or a prompt to cut before (any branch). */
  n?: number;
  promptUuid?: string;
  /** The number the timeline shows for that prompt, kept in the fork's journal record for its label. */
  promptNumber?: number;
  mode: RewindMode;
  dryRun?: boolean;
  force?: boolean;
  /** Where backups and the journal go; null: the transcript's own cwd, when project.ts `sessionJournalRoot` allows it. */
  projectRoot: string | null;
  /** The folder the user works in (the CLI's cwd). */
  here?: string | null;
  /** Claude config root, for `file-history/`; null: two levels above the transcript. */
  claudeRoot?: string | null;
  /** An in-place rewrite of a file written this recently is refused without --force. */
  liveWindowMs?: number;
  now?: () => number;
  chunkSize?: number;
  /** Prompts on the live path, when a full parse knows it: the statement then numbers prompts (#n). */
  livePromptCount?: number | null;
  /** The size the user's preview was made at: a transcript that changed since is refused (review again). */
  expectSize?: number;
  /** One user action made of several journal records (fork + restore): undone together. */
  journalGroup?: string;
  /** Test seam: runs between the scan and each revalidation (where a live agent's append lands). */
  beforeRevalidate?: () => Promise<void>;
}

export interface RewindResult {
  mode: RewindMode;
  dryRun: boolean;
  transcript: string;
  sessionId: string;
  boundaryOffset: number;
  resultSize: number;
  droppedMessages: number;
  prompts: RevertedPrompt[];
  /** What the result holds and leaves out, in one place (CLI, JSON and window all print it). */
  statement: RewindStatement;
  forkSessionId: string | null;
  forkPath: string | null;
  backupPath: string | null;
  projectRoot: string | null;
  journalId: string | null;
  bytesScanned: number;
  /** The transcript's size when planned. */
  size: number;
  warnings: string[];
}

const MAX_ATTEMPTS = 3;
export { DEFAULT_LIVE_WINDOW_MS };

interface Snapshot {
  size: number;
  /** Only computed when we are going to write (a dry run never loads node:crypto). */
  fp: Fingerprint | null;
  scan: TailScan;
  plan: RewindPlan;
  statement: RewindStatement;
}

const fingerprints = () => import('../../../io/fingerprint.js');

async function takeSnapshot(fh: FileHandle, opts: RewindOptions): Promise<Snapshot> {
  const size = (await fh.stat()).size;
  if (size === 0) throw new RewindError('NOT_ENOUGH_PROMPTS', `transcript is empty: ${opts.transcriptPath}`);
  const fp = opts.dryRun ? null : await (await fingerprints()).fingerprintHandle(fh, size);
  const scan = await scanTail(fh, size, opts.promptUuid ? { promptUuid: opts.promptUuid } : { n: opts.n ?? 1 }, opts.chunkSize);
  if (!scan.keepLeaf) {
    throw new RewindError(
      'NOT_ENOUGH_PROMPTS',
      opts.promptUuid
        ? 'that is the first prompt: nothing would be left to resume (start a new session instead)'
        : `cannot go back ${opts.n ?? 1}: that is every prompt on the live path, nothing would be left to resume (start a new session instead)`,
    );
  }
  const plan = planRewind(scan);
  return { size, fp, scan, plan, statement: rewindStatement(scan, plan, opts.mode, opts.livePromptCount ?? null) };
}

/** True when the first `size` bytes are still what we scanned (the file may have grown). */
async function prefixUnchanged(fh: FileHandle, snap: Snapshot): Promise<{ unchanged: boolean; size: number }> {
  const size = (await fh.stat()).size;
  if (size < snap.size) return { unchanged: false, size };
  const { fingerprintHandle, sameFingerprint } = await fingerprints();
  const fp = await fingerprintHandle(fh, snap.size);
  return { unchanged: !!snap.fp && sameFingerprint(fp, snap.fp), size };
}

export async function rewindTranscript(opts: RewindOptions): Promise<RewindResult> {
  return inPlaceLocked(opts, () => rewindUnlocked(opts));
}

/** The transcript's own fields are data, not paths: an id that is not one never names a file. */
function safeSessionId(fromScan: string | null | undefined, transcriptPath: string): string {
  if (isSafeId(fromScan)) return fromScan;
  const base = basename(transcriptPath, '.jsonl');
  return isSafeId(base) ? base : 'transcript';
}


async function rewindUnlocked(opts: RewindOptions): Promise<RewindResult> {
  const now = opts.now ?? Date.now;
  const fh = await open(opts.transcriptPath, 'r').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new RewindError('NO_TRANSCRIPT', `transcript not found: ${opts.transcriptPath}`);
    throw e;
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new RewindError('INVALID_TRANSCRIPT', `not a transcript file: ${opts.transcriptPath}`);
    let snap = await takeSnapshot(fh, opts);
    if (opts.expectSize !== undefined && snap.size !== opts.expectSize) {
      throw new RewindError('TRANSCRIPT_CHANGED', 'the session changed since the preview was made: nothing was written, review the preview again');
    }
    const warnings: string[] = [];
    if (snap.plan.garbageLines > 0) warnings.push(`skipped ${snap.plan.garbageLines} unreadable line(s) in the transcript's tail`);
    const sessionId = safeSessionId(snap.scan.sessionId, opts.transcriptPath);
    let projectRoot = opts.projectRoot;
    // The cwd a transcript records may be gone, or be any folder: never create it, nor a journal in a stranger's folder.
    if (!projectRoot && snap.scan.cwd) {
      const j = await sessionJournalRoot(snap.scan.cwd, opts.here);
      projectRoot = j.root;
      if (!projectRoot && j.why) {
        if (opts.mode === 'in-place') throw new RewindError('USAGE', `${j.why}: pass --project DIR for the backup`);
        warnings.push(`${j.why}: this fork is not in an undo journal (pass --project DIR)`);
      }
    }
    const base: Omit<RewindResult, 'forkSessionId' | 'forkPath' | 'backupPath' | 'journalId'> = {
      mode: opts.mode,
      dryRun: !!opts.dryRun,
      transcript: opts.transcriptPath,
      sessionId,
      boundaryOffset: snap.plan.boundaryOffset,
      resultSize: snap.plan.resultSize,
      droppedMessages: snap.plan.droppedMessages,
      prompts: snap.plan.prompts,
      statement: snap.statement,
      projectRoot,
      bytesScanned: snap.scan.bytesScanned,
      size: snap.size,
      warnings,
    };

    if (opts.mode === 'in-place') {
      // Refuse to rewrite under a running agent: its next append would go to the replaced file.
      const age = now() - (await fh.stat()).mtimeMs;
      const window = opts.liveWindowMs ?? DEFAULT_LIVE_WINDOW_MS;
      if (!opts.force && age < window && opts.dryRun) {
        // A preview still shows the plan; the write itself is refused unless forced.
        warnings.push(agentWritingSentence(age / 1000));
      } else if (!opts.force && age < window) {
        throw new RewindError(
          'TRANSCRIPT_LIVE',
          `${agentWritingSentence(age / 1000)} Stop it first, or pass --force.`,
        );
      }
    }

    if (opts.dryRun) {
      const backupPath = opts.mode === 'in-place' && projectRoot ? backupPathFor(projectRoot, sessionId, now()) : null;
      return { ...base, forkSessionId: null, forkPath: null, backupPath, journalId: null };
    }

    // Revalidate: the file may have changed while we scanned.
    for (let attempt = 1; ; attempt++) {
      await opts.beforeRevalidate?.();
      const check = await prefixUnchanged(fh, snap);
      const grew = check.size !== snap.size;
      if (check.unchanged && (opts.mode === 'fork' || !grew)) break;
      if (attempt >= MAX_ATTEMPTS) {
        throw new RewindError('TRANSCRIPT_CHANGED', `transcript keeps changing while we work (the agent is writing it): ${opts.transcriptPath}`);
      }
      // --force overrides the recent-write window only: appended lines are never dropped.
      if (opts.mode === 'in-place' && grew) {
        throw new RewindError('TRANSCRIPT_CHANGED', `transcript grew while we worked: the agent is running (stop it first); nothing was written`);
      }
      snap = await takeSnapshot(fh, opts);
      Object.assign(base, { boundaryOffset: snap.plan.boundaryOffset, resultSize: snap.plan.resultSize, droppedMessages: snap.plan.droppedMessages, prompts: snap.plan.prompts, statement: snap.statement });
    }

    const { randomUUID } = await import('node:crypto');
    const journalId = randomUUID();
    const ranges = keptRanges(snap.plan);
    if (opts.mode === 'fork') {
      await cleanStaleTemps(dirname(opts.transcriptPath));
      const forkSessionId = randomUUID();
      const forkPath = join(dirname(opts.transcriptPath), `${forkSessionId}.jsonl`);
      if (snap.plan.drop.length === 0) {
        await copyPrefixAtomic(opts.transcriptPath, forkPath, snap.plan.boundaryOffset, async (tmp) => {
          // The source may have been rewritten between our check and the copy: compare the ends.
          const { fingerprintHandle, fingerprintFile, sameFingerprint } = await fingerprints();
          if (!sameFingerprint(await fingerprintFile(tmp), await fingerprintHandle(fh, snap.plan.boundaryOffset))) {
            throw new RewindError('TRANSCRIPT_CHANGED', 'transcript was rewritten while we copied it: nothing was written');
          }
        }, { durable: false }); // a fork is a new file and the original is untouched: a crash can cost the fork, never the user's data
      } else {
        await writeFileAtomic(forkPath, async (out) => {
          await copyRanges(fh, out, ranges);
        });
      }
      const claudeRoot = opts.claudeRoot ?? claudeRootOfTranscript(opts.transcriptPath) ?? dirname(dirname(dirname(opts.transcriptPath)));
      // The file's own name is the id Claude keeps its file history under: linked only when it is an id.
      const fromId = basename(opts.transcriptPath, '.jsonl');
      const fileHistoryDir = isSafeId(fromId) ? await linkFileHistory(claudeRoot, fromId, forkSessionId) : null;
      const result = await fingerprintOf(forkPath);
      if (projectRoot) {
        // Loaded only when writing: keeps zod off the start-up path of a dry run.
        const { appendJournal } = await import('../../../journal/append.js');
        await appendJournal(projectRoot, {
          kind: 'fork',
          id: journalId,
          ...(opts.journalGroup ? { group: opts.journalGroup } : {}),
          time: new Date(now()).toISOString(),
          transcript: opts.transcriptPath,
          sessionId,
          forkPath,
          forkSessionId,
          fileHistoryDir,
          result,
          boundaryOffset: snap.plan.boundaryOffset,
          prompts: snap.plan.prompts.map((p) => p.uuid),
          ...(opts.promptNumber ? { promptNumber: opts.promptNumber } : {}),
        });
      } else {
        warnings.push('no project folder known: this fork is not in an undo journal');
      }
      return { ...base, forkSessionId, forkPath, backupPath: null, journalId: projectRoot ? journalId : null };
    }

    if (!projectRoot) throw new RewindError('USAGE', 'no project folder for the backup: pass --project DIR');
    // The writer every agent shares: hard-linked backup, a last look at the path, carry-over.
    const opened = await fh.stat();
    const held = { path: opts.transcriptPath, fh, size: snap.size, ino: opened.ino, dev: opened.dev, fp: snap.fp! };
    const { replaceInPlace, carriedWarning } = await import('../../in-place-write.js');
    const { backupPath, result, carried } = await replaceInPlace({ held, projectRoot, sessionId, time: now(), write: async (out) => {
      await copyRanges(fh, out, ranges);
    } });
    warnings.push(...carriedWarning(carried));
    const { appendJournal } = await import('../../../journal/append.js');
    await appendJournal(projectRoot, {
      kind: 'in-place',
      id: journalId,
      ...(opts.journalGroup ? { group: opts.journalGroup } : {}),
      time: new Date(now()).toISOString(),
      transcript: opts.transcriptPath,
      sessionId,
      backupPath,
      original: snap.fp!,
      result,
      boundaryOffset: snap.plan.boundaryOffset,
      prompts: snap.plan.prompts.map((p) => p.uuid),
    });
    return { ...base, forkSessionId: null, forkPath: null, backupPath, journalId };
  } finally {
    await fh.close();
  }
}


async function fingerprintOf(path: string): Promise<Fingerprint> {
  return (await fingerprints()).fingerprintFile(path);
}
