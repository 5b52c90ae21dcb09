import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RewindError } from '../errors.js';
import { plural } from '../../shared/wording.js';
import { objectStore } from './checkpoint.js';
import { latestManifest, listCheckpoints, readManifest, type CheckpointSummary } from './manifest.js';
import type { WriteHook } from './restore-apply.js';
import { diffChanges, type FileDiff } from './restore-diff.js';
import { recoverPending } from './restore-intent.js';
import type { FileChange, RestorePlan } from './restore-plan.js';
import { tieByOffset } from './untied-prompts.js';
import { applyRecorded, touchedBetween, type RestoreSession } from './restore.js';
import { resolveTake, revertFile, type Take } from './revert-merge.js';
import { currentTree, treeFromEntries, type NodeState, type TreeState } from './tree-state.js';

export type { Take } from './revert-merge.js';

/** A conflicted file, with both sides for the preview and the choice made for it (null: none yet). */
export interface RevertConflict {
  path: string;
  reason: string;
  /** The file now, as it was before the prompt, and as the prompt left it (null: absent, or binary). */
  current: string | null;
  before: string | null;
  after?: string | null;
  binary: boolean;
  /** Whether conflict markers can be written (a text file). */
  canMark: boolean;
  choice: Take | null;
}

export interface RevertPreview {
  promptId: string;
  agent: string | null;
  sessionId: string | null;
  transcript: string | null;
  /** The checkpoint before the prompt, and the one after its turn (null: the tree now). */
  checkpointId: string;
  afterCheckpointId: string | null;
  /** Where "after the prompt" was read from, in the user's words. */
  afterNote: string;
  plan: RestorePlan;
  diffs: FileDiff[];
  conflicts: RevertConflict[];
  /** Conflicted files with no choice yet: the revert is refused while any is left. */
  unresolved: string[];
}

export interface RevertOptions {
  promptId: string;
  /** Maps a prompt's uuid to the id the hook saw (Claude's promptId); any agent's session. */
  session?: RestoreSession | null;
  /** One choice for every conflicted file, or one per path. */
  take?: Take | Record<string, Take> | null;
  dryRun?: boolean;
  /** Overrides the recent-write window (the agent may still be running); never resolves a conflict. */
  force?: boolean;
  withDiffs?: boolean;
  now?: () => number;
  writeHook?: WriteHook;
  journalGroup?: string;
}

export interface RevertResult {
  preview: RevertPreview;
  applied: { written: number; deleted: number; preRestoreId: string; journalId: string } | null;
}

/** The window in which a session's file counts as being written (the rewinds use the same 5 s). */
export const REVERT_LIVE_WINDOW_MS = 5_000;
/** Sides shown in a conflict are cut past this (the whole file is still merged). */
const SIDE_MAX = 200_000;

const sameNode = (a: NodeState | undefined, b: NodeState | undefined) => (!a ? !b : !!b && a.kind === b.kind && a.ref === b.ref && (a.kind !== 'f' || (a.mode & 0o111) === (b.mode & 0o111)));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The checkpoint taken before the prompt (by uuid or the hook's prompt id) and the next prompt's checkpoint in the project. */
export function turnCheckpoints(all: CheckpointSummary[], promptId: string, session: RestoreSession | null | undefined): { before: CheckpointSummary; after: CheckpointSummary | null } | null {
  // A checkpoint whose prompt was written after the hook's last event is tied here (untied-prompts.ts).
  const list = session ? tieByOffset(all, session.transcriptPath, session.prompts) : all;
  const pid = session?.prompts.find((p) => p.uuid === promptId)?.promptId ?? null;
  const match = (c: CheckpointSummary) => c.trigger === 'prompt' && !!c.transcript && (c.transcript.prompt_uuid === promptId || c.transcript.prompt_id === promptId || (!!pid && c.transcript.prompt_id === pid));
  let i = -1;
  for (let k = list.length - 1; k >= 0; k--) if (match(list[k]!)) {
    i = k;
    break;
  }
  if (i < 0) return null;
  const before = list[i]!;
  // The next prompt of any session in the project ends the turn (a fork goes on in a new file;
  // a second session may work there too): what comes after it is never taken as this prompt's.
  // The turn's own end (the hook's turn-end checkpoint) comes first when there is one: edits made by
  // hand after the turn and before the next prompt are in the next prompt's checkpoint, never the turn's.
  const after = list.slice(i + 1).find((c) => c.trigger === 'prompt' || c.trigger === 'turn-end') ?? null;
  return { before, after };
}

interface RevertContext {
  preview: RevertPreview;
  current: TreeState;
  readBlob: (ref: string) => Promise<Buffer>;
}

/**
 * Plans taking one prompt's changes back out of the project while keeping every later change: per
 * file a three-way merge of the file after the prompt (base), now (ours) and before it (theirs).
 */
export async function previewRevert(projectRoot: string, opts: RevertOptions): Promise<RevertContext> {
  const list = await listCheckpoints(projectRoot);
  const turn = turnCheckpoints(list, opts.promptId, opts.session);
  if (!turn) throw new RewindError('NO_CHECKPOINT', `no Rewind checkpoint for prompt ${opts.promptId} in ${projectRoot}/.agent/rewind: its changes cannot be told apart (install the hooks: rewind-app hooks install)`);
  const newest = await latestManifest(projectRoot);
  const current = await currentTree(projectRoot, newest);
  const beforeM = await readManifest(projectRoot, turn.before.id);
  const afterM = turn.after ? await readManifest(projectRoot, turn.after.id) : null;
  const before = treeFromEntries(beforeM.entries);
  const after = afterM ? treeFromEntries(afterM.entries) : current;
  const leave = new Set([...beforeM.skipped, ...(afterM?.skipped ?? [])].map((s) => s.path));
  const objects = objectStore(projectRoot);
  const made = new Map<string, Buffer>();
  const readBlob = async (ref: string) => made.get(ref) ?? objects.read(ref);
  const read = async (n: NodeState | undefined, disk: string | null): Promise<Buffer | null> => {
    if (!n) return null;
    if (n.kind === 'l') return Buffer.from(`symlink -> ${n.ref}\0`);
    return disk ? readFile(disk) : objects.read(n.ref);
  };
  const takeOf = (path: string): Take | null => (!opts.take ? null : typeof opts.take === 'string' ? opts.take : (opts.take[path] ?? null));
  const changes: FileChange[] = [];
  const conflicts: RevertConflict[] = [];
  const modeFor = (o: NodeState | undefined, b: NodeState | undefined, t: NodeState | undefined) => {
    if (!o || o.kind !== 'f') return t?.mode ?? 0o644;
    // The prompt's own exec-bit change goes back too, when nobody changed the bit since.
    return b && t && (o.mode & 0o111) === (b.mode & 0o111) ? t.mode : o.mode;
  };
  const nodeOf = (data: Buffer, mode: number): NodeState => {
    const ref = sha(data);
    made.set(ref, data);
    return { kind: 'f', ref, mode, size: data.length };
  };
  for (const path of touchedBetween(before, after)) {
    if (leave.has(path)) continue;
    const [b, o, t] = [after.get(path), current.get(path), before.get(path)];
    if (o?.kind === 'd' || t?.kind === 'd') continue;
    if (sameNode(o, t)) continue;
    const change = (target: NodeState | null) => changes.push({ path, action: !o ? 'create' : !target ? 'delete' : 'modify', before: o ?? null, after: target, conflict: null });
    if (sameNode(o, b)) {
      change(t ? { ...t, mode: t.kind === 'f' ? modeFor(o, b, t) : t.mode } : null);
      continue;
    }
    const [base, ours, theirs] = [await read(b, null), await read(o, join(projectRoot, path)), await read(t, null)];
    const m = revertFile(base, ours, theirs);
    if (m.outcome === 'unchanged') {
      // Same bytes as before the prompt: only its exec bit may be left to put back.
      if (o && t && o.kind === 'f' && (o.mode & 0o111) !== (t.mode & 0o111) && b && (o.mode & 0o111) === (b.mode & 0o111)) change({ ...o, mode: t.mode });
      continue;
    }
    if (m.outcome === 'clean') {
      change(m.result ? nodeOf(m.result, modeFor(o, b, t)) : null);
      continue;
    }
    const binary = m.markers === null;
    const text = (x: Buffer | null) => (x === null || binary ? null : x.toString('utf8').slice(0, SIDE_MAX));
    const choice = takeOf(path);
    conflicts.push({ path, reason: m.reason, current: text(ours), before: text(theirs), after: text(base), binary, canMark: !binary, choice });
    if (!choice || choice === 'current') continue;
    if (choice === 'markers' && binary) throw new RewindError('USAGE', `${path} is binary: conflict markers cannot be written in it (take current or before for it)`);
    const result = resolveTake(choice, ours, theirs, m.markers);
    if (choice === 'before') change(t ? { ...t, mode: t.kind === 'f' ? modeFor(o, b, t) : t.mode } : null);
    else change(result ? nodeOf(result, modeFor(o, b, t)) : null);
  }
  const unresolved = conflicts.filter((c) => !c.choice).map((c) => c.path);
  const plan: RestorePlan = { changes, unchanged: 0, untouched: [], conflicts: unresolved.length };
  const diffs = opts.withDiffs === false ? [] : await diffChanges(projectRoot, changes, readBlob);
  const cursor = turn.before.transcript!;
  return {
    preview: {
      promptId: opts.promptId,
      agent: opts.session?.agent ?? cursor.agent ?? null,
      sessionId: cursor.session_id,
      transcript: cursor.transcript_path,
      checkpointId: turn.before.id,
      afterCheckpointId: turn.after?.id ?? null,
      afterNote: turn.after
        ? `the prompt's turn: from checkpoint ${turn.before.id} to the next prompt's ${turn.after.id}`
        : `the last prompt with a checkpoint: its turn is everything changed since checkpoint ${turn.before.id}, up to now`,
      plan,
      diffs,
      conflicts,
      unresolved,
    },
    current,
    readBlob,
  };
}

/** The session file was written within the window: the agent may still be running. */
async function refuseLive(transcript: string | null, now: number): Promise<void> {
  if (!transcript) return;
  const st = await stat(transcript).catch(() => null);
  if (!st) return;
  const secs = Math.max(0, Math.round((now - st.mtimeMs) / 1000));
  if (now - st.mtimeMs < REVERT_LIVE_WINDOW_MS) throw new RewindError('TRANSCRIPT_LIVE', `the session was written ${secs}s ago: the agent may still be running (stop it first, or pass --force)`);
}

/**
 * Reverts one prompt's changes: preview, then (unless a dry run) all or nothing through the
 * restore engine's apply, with a pre- and post-checkpoint and one journal entry that undo takes.
 * Refused while a conflicted file has no choice; `force` never makes one.
 */
export async function revert(projectRoot: string, opts: RevertOptions): Promise<RevertResult> {
  if (!opts.dryRun) await recoverPending(projectRoot);
  const ctx = await previewRevert(projectRoot, { ...opts, withDiffs: !!opts.dryRun && opts.withDiffs !== false });
  const p = ctx.preview;
  if (opts.dryRun) return { preview: p, applied: null };
  if (p.unresolved.length) {
    throw new RewindError('CONFLICT', `${plural(p.unresolved.length, 'file')} changed since the prompt overlap its changes: ${p.unresolved.slice(0, 5).join(', ')}${p.unresolved.length > 5 ? ', ...' : ''} (choose for each with --take current|before|markers; nothing was changed)`);
  }
  if (!opts.force) await refuseLive(p.transcript, (opts.now ?? Date.now)());
  if (p.plan.changes.length === 0) return { preview: p, applied: null };
  const choices = Object.fromEntries(p.conflicts.filter((c) => c.choice).map((c) => [c.path, c.choice!]));
  const applied = await applyRecorded(projectRoot, { plan: p.plan, current: ctx.current, readBlob: ctx.readBlob, keepDirs: new Set() }, {
    op: 'revert',
    label: `reverting prompt ${p.promptId}`,
    now: opts.now,
    writeHook: opts.writeHook,
    record: (id, time, preRestoreCheckpointId) => ({
      kind: 'revert',
      id,
      ...(opts.journalGroup ? { group: opts.journalGroup } : {}),
      time,
      promptId: p.promptId,
      agent: p.agent,
      sessionId: p.sessionId,
      transcript: p.transcript,
      checkpointId: p.checkpointId,
      afterCheckpointId: p.afterCheckpointId,
      choices,
      preRestoreCheckpointId,
    }),
  });
  return { preview: p, applied };
}

/**
 * The session a prompt belongs to, found from the checkpoint markers alone: each session file the
 * project's prompt checkpoints name is read (its own agent's reader) until one has the prompt. A
 * given transcript is tried first. Null when none does (a hook's prompt id still matches directly).
 */
export async function sessionForPrompt(projectRoot: string, promptId: string, first?: string | null): Promise<RestoreSession | null> {
  const { readRestoreSession } = await import('./restore-session.js');
  const list = await listCheckpoints(projectRoot).catch(() => [] as CheckpointSummary[]);
  const paths = [...new Set([...(first ? [first] : []), ...list.filter((c) => c.trigger === 'prompt' && c.transcript).map((c) => c.transcript!.transcript_path).reverse()])];
  for (const p of paths) {
    const s = await readRestoreSession(p).catch(() => null);
    if (s?.prompts.some((x) => x.uuid === promptId || x.promptId === promptId)) return s;
  }
  return null;
}
