import { RewindError } from '../errors.js';
import { takenLater } from '../../shared/checkpoint-time.js';
import type { CodeBefore } from '../agents/adapter.js';
import { readAgentWrites } from './agent-writes.js';
import { objectStore, takeCheckpoint } from './checkpoint.js';
import { latestManifest, listCheckpointIds, listCheckpoints, readManifest, type CheckpointSummary, type Manifest } from './manifest.js';
import { applyPlan, type WriteHook } from './restore-apply.js';
import { tieByOffset } from './untied-prompts.js';
import { finishIntent, recoverPending, type Intent, type IntentSpec } from './restore-intent.js';
import type { JournalRecord } from '../journal/record.js';
import { diffChanges, type FileDiff } from './restore-diff.js';
import { planRestore, type RestorePlan } from './restore-plan.js';
import { currentTree, treeFromEntries, unreadableIn, type TreeState } from './tree-state.js';
import { plural, REWIND_CHECKPOINT_COVERS } from '../../shared/wording.js';

/** Rewind's own checkpoints, or the agent's own store (its `codeHistory`). */
export type RestoreSource = 'rewind' | 'agent';

export interface RestoreTarget {
  source: RestoreSource;
  /** Our checkpoint (source rewind). */
  checkpoint: Manifest | null;
  /** The prompt it is the state before, when known. */
  promptUuid: string | null;
  /** Source agent: whose store, and the session file it reads it for. */
  agent?: string | null;
  transcriptPath?: string | null;
  /** Why this source and target were picked, in the user's words. */
  note: string;
}

export interface RestorePreview {
  target: RestoreTarget;
  plan: RestorePlan;
  diffs: FileDiff[];
  skipped: { path: string; size: number; reason: string }[];
  outside: string[];
  /** What the agent's store could not say (evicted content...), one line each. */
  unknown?: string[];
}

/** What restore needs of the session a prompt is in, read off its timeline (any agent). */
export interface RestoreSession {
  transcriptPath: string;
  /** The adapter id. */
  agent: string;
  /** `timestamp`: the prompt's own time, when known (a checkpoint taken long after it is not its code). */
  prompts: { uuid: string; promptId: string | null; active: boolean; timestamp?: string | null; byteOffset?: number | null }[];
}

export interface ResolveOptions {
  projectRoot: string;
  /** checkpoint id (or prefix), a prompt uuid, or @n (the n-th newest checkpoint). */
  ref: string;
  source?: RestoreSource;
  /** Needed for prompt uuids and for the agent source. */
  session?: RestoreSession | null;
  /** The agent's root, as configured (its store is looked for beside the session file first). */
  agentRoot?: string | null;
}

/** A prompt uuid (what `restore` accepts besides checkpoint ids and @n). */
export const PROMPT_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A prompt's id: a uuid, or any id the session's own timeline gives a prompt (Codex's are not uuids). */
const isPromptRef = (ref: string, session: RestoreSession | null | undefined) => PROMPT_UUID.test(ref) || !!session?.prompts.some((p) => p.uuid === ref);

/** Our checkpoint taken right before a prompt: tied by prompt uuid, or by the hook's prompt_id. */
export async function checkpointForPrompt(projectRoot: string, promptUuid: string, session: RestoreSession | null): Promise<Manifest | null> {
  const prompt = session?.prompts.find((p) => p.uuid === promptUuid);
  const promptId = prompt?.promptId ?? null;
  return newestReadable(projectRoot, session, (c) => c.trigger === 'prompt' && !!c.transcript && (c.transcript.prompt_uuid === promptUuid || (!!promptId && c.transcript.prompt_id === promptId)) && !takenLater(prompt?.timestamp ?? null, c.time));
}

/**
 * A prompt whose checkpoint may still be being taken in the background (a project's first): no
 * other source stands in for it, and the restore says what it is waiting for.
 */
async function refuseWhileInBackground(projectRoot: string): Promise<void> {
  const { backgroundRunning, inProgressText } = await import('./background-checkpoint.js');
  const running = await backgroundRunning(projectRoot);
  // A prompt with no checkpoint yet while one is still being read may be that one's: no other source stands in.
  if (running) throw new RewindError('NO_CHECKPOINT', `the checkpoint before this prompt may not be complete yet (${inProgressText(running)}); nothing was changed: try again in a moment`);
}

/**
 * The newest checkpoint whose index entry matches, read whole. The index holds each checkpoint's
 * transcript cursor, so only matching manifests are read; an unreadable one is passed over.
 */
async function newestReadable(projectRoot: string, session: RestoreSession | null, match: (c: CheckpointSummary) => boolean): Promise<Manifest | null> {
  const all = await listCheckpoints(projectRoot);
  // A checkpoint whose prompt was written after the hook's last event is tied here (untied-prompts.ts).
  const list = session ? tieByOffset(all, session.transcriptPath, session.prompts) : all;
  for (let i = list.length - 1; i >= 0; i--) {
    if (!match(list[i]!)) continue;
    const m = await readManifest(projectRoot, list[i]!.id).catch(() => null);
    if (m) return m;
  }
  return null;
}

/** The agent's store as a restore source, by the session's agent id (null: it keeps none). */
async function codeHistoryOf(agent: string) {
  const { adapterFor } = await import('../agents/registry.js');
  const a = adapterFor(agent);
  return a.codeHistory ? { adapter: a, history: a.codeHistory } : null;
}

/** The agent's files before a prompt, or null when its store has nothing for it. */
async function agentBefore(projectRoot: string, target: { agent?: string | null; transcriptPath?: string | null; promptUuid: string | null }, agentRoot?: string | null): Promise<CodeBefore | null> {
  const h = target.agent ? await codeHistoryOf(target.agent) : null;
  if (!h || !target.transcriptPath || !target.promptUuid) return null;
  return h.history.before({ transcriptPath: target.transcriptPath, promptUuid: target.promptUuid, projectRoot, agentRoot });
}

function agentTarget(session: RestoreSession, promptUuid: string, history: { label: string; covers: string }, why: string): RestoreTarget {
  return { source: 'agent', checkpoint: null, promptUuid, agent: session.agent, transcriptPath: session.transcriptPath, note: `${history.label}${why}: ${history.covers}` };
}

/**
 * The code state to go with a chat rewind: our checkpoint taken before the first reverted prompt,
 * else the newest one taken on this transcript at or before the cut, else the agent's own store;
 * null when none has anything for it (`nothingForPrompt` says so).
 */
export async function targetForRewind(
  projectRoot: string,
  session: RestoreSession,
  promptUuid: string,
  boundaryOffset: number,
  opts: { agentRoot?: string | null } = {},
): Promise<RestoreTarget | null> {
  const exact = await checkpointForPrompt(projectRoot, promptUuid, session);
  if (!exact) await refuseWhileInBackground(projectRoot);
  if (exact) return { source: 'rewind', checkpoint: exact, promptUuid, note: `Rewind checkpoint ${exact.id} (taken before that prompt): ${REWIND_CHECKPOINT_COVERS}` };
  const m = await newestReadable(projectRoot, null, (c) => c.transcript?.transcript_path === session.transcriptPath && c.transcript.byte_offset_end <= boundaryOffset);
  if (m) return { source: 'rewind', checkpoint: m, promptUuid, note: `Rewind checkpoint ${m.id} (the newest before that prompt): ${REWIND_CHECKPOINT_COVERS}` };
  const h = await codeHistoryOf(session.agent);
  if (!h) return null;
  const t = agentTarget(session, promptUuid, h.history, ' (no Rewind checkpoint)');
  return (await agentBefore(projectRoot, t, opts.agentRoot)) ? t : null;
}

/** One line for a prompt whose code no source holds: names the agent's store when it has one. */
export async function nothingForPrompt(session: RestoreSession | null, projectRoot: string): Promise<string> {
  const h = session ? await codeHistoryOf(session.agent) : null;
  const store = h ? `${h.history.label}: nothing for that prompt, and ` : '';
  return `${store}no Rewind checkpoint in ${projectRoot}/.agent/rewind covers it: the code is unchanged (install the hooks: rewind-app hooks install${session ? ` --agent ${session.agent}` : ''})`;
}

export async function resolveRestoreTarget(o: ResolveOptions): Promise<RestoreTarget> {
  const ids = await listCheckpointIds(o.projectRoot);
  if (o.source !== 'agent') {
    if (/^@\d+$/.test(o.ref)) {
      const n = Number(o.ref.slice(1));
      if (n < 1) throw new RewindError('USAGE', '@n counts from 1 (the newest checkpoint)');
      const id = ids[ids.length - n];
      if (!id) throw new RewindError('NO_CHECKPOINT', `there are only ${ids.length} checkpoints`);
      const m = await readManifest(o.projectRoot, id);
      return { source: 'rewind', checkpoint: m, promptUuid: m.transcript?.prompt_uuid ?? null, note: `Rewind checkpoint ${id}` };
    }
    if (isPromptRef(o.ref, o.session)) {
      const m = await checkpointForPrompt(o.projectRoot, o.ref, o.session ?? null);
      if (m) return { source: 'rewind', checkpoint: m, promptUuid: o.ref, note: `Rewind checkpoint ${m.id} (taken before that prompt): ${REWIND_CHECKPOINT_COVERS}` };
      await refuseWhileInBackground(o.projectRoot);
      if (o.source === 'rewind') throw new RewindError('NO_CHECKPOINT', `no Rewind checkpoint for prompt ${o.ref} (were the hooks installed then?)`);
      const h = o.session ? await codeHistoryOf(o.session.agent) : null;
      if (!h || !o.session) throw new RewindError('NO_CHECKPOINT', `no Rewind checkpoint for prompt ${o.ref}, and its agent keeps no file history of its own (were the hooks installed then?)`);
      return agentTarget(o.session, o.ref, h.history, ' (no Rewind checkpoint for that prompt)');
    }
    const matches = ids.filter((id) => id.startsWith(o.ref));
    if (matches.length === 1) {
      const m = await readManifest(o.projectRoot, matches[0]!);
      return { source: 'rewind', checkpoint: m, promptUuid: m.transcript?.prompt_uuid ?? null, note: `Rewind checkpoint ${m.id}` };
    }
    if (matches.length > 1) throw new RewindError('USAGE', `checkpoint id prefix "${o.ref}" is ambiguous (${matches.length} match)`);
    throw new RewindError('NO_CHECKPOINT', `no checkpoint "${o.ref}" (see rewind-app checkpoints)`);
  }
  if (!isPromptRef(o.ref, o.session)) throw new RewindError('USAGE', "the agent's own store takes a prompt uuid (see rewind-app timeline)");
  const h = o.session ? await codeHistoryOf(o.session.agent) : null;
  if (!h || !o.session) throw new RewindError('UNSUPPORTED', "this session's agent keeps no file history of its own: restore from Rewind's checkpoints");
  return agentTarget(o.session, o.ref, h.history, '');
}

/** The state the agent left: newest checkpoint plus the edits it reported since. */
async function expectedTree(projectRoot: string, newest: Manifest | null): Promise<TreeState | null> {
  if (!newest) return null;
  const t = treeFromEntries(newest.entries);
  for (const w of await readAgentWrites(projectRoot, newest.time)) {
    if (w.ref === null) t.delete(w.path);
    else t.set(w.path, { kind: 'f', ref: w.ref, mode: t.get(w.path)?.mode ?? 0o644, size: 0 });
  }
  return t;
}

/** What a checkpoint taken in the background cannot vouch for, as a preview's `unknown` line. */
function backgroundNote(m: Manifest): { unknown?: string[] } {
  return m.background?.note ? { unknown: [`checkpoint ${m.id} was read in the background (${m.background.started} to ${m.background.finished}): ${m.background.note}`] } : {};
}

export interface PreviewContext {
  preview: RestorePreview;
  /** The tree as read for the preview: becomes the pre-restore checkpoint. */
  current: TreeState;
  readBlob: (ref: string) => Promise<Buffer>;
  keepDirs: Set<string>;
}

export async function previewRestore(
  projectRoot: string,
  target: RestoreTarget,
  opts: { agentRoot?: string | null; withDiffs?: boolean } = {},
): Promise<PreviewContext> {
  const newest = await latestManifest(projectRoot);
  const current = await currentTree(projectRoot, newest);
  const expected = await expectedTree(projectRoot, newest);
  const objects = objectStore(projectRoot);
  if (target.source === 'rewind') {
    const m = target.checkpoint!;
    // Passed over by the checkpoint (too large, unreadable, a FIFO...) or unreadable now: left as it is.
    const unreadable = unreadableIn.get(current) ?? [];
    const skipped = [...m.skipped, ...unreadable.filter((u) => !m.skipped.some((s) => s.path === u.path))];
    const leaveAlone = new Set(skipped.map((s) => s.path));
    const plan = planRestore({ target: treeFromEntries(m.entries), current, expected, coverage: 'all', leaveAlone });
    const readBlob = (ref: string) => objects.read(ref);
    const diffs = opts.withDiffs === false ? [] : await diffChanges(projectRoot, plan.changes, readBlob);
    const keepDirs = new Set(m.entries.filter((e) => e[1] === 'd').map((e) => e[0]));
    return { preview: { target, plan, diffs, skipped, outside: [], ...backgroundNote(m) }, current, readBlob, keepDirs };
  }
  const before = await agentBefore(projectRoot, target, opts.agentRoot);
  if (!before) throw new RewindError('NO_CHECKPOINT', await nothingForPrompt(target.agent && target.transcriptPath ? { agent: target.agent, transcriptPath: target.transcriptPath, prompts: [] } : null, projectRoot));
  const { tree, coverage } = treeOfAgentStore(before, current);
  const plan = planRestore({ target: tree, current, expected, coverage });
  const fromStore = new Set([...tree.values()].map((n) => n.ref));
  const readBlob = (ref: string) => (fromStore.has(ref) ? before.read(ref) : objects.read(ref));
  const diffs = opts.withDiffs === false ? [] : await diffChanges(projectRoot, plan.changes, readBlob);
  return { preview: { target, plan, diffs, skipped: [], outside: before.outside, unknown: before.unknown }, current, readBlob, keepDirs: new Set() };
}

/**
 * The agent's answer as a tree the planner takes. A store that keeps no modes (Claude's) restores
 * contents and leaves a file's mode as it is. Tracked: only the listed paths are touched; a whole
 * tree: every file on disk is its business (one it does not hold did not exist then).
 */
export function treeOfAgentStore(before: CodeBefore, current: TreeState): { tree: TreeState; coverage: Set<string> | 'all' } {
  const tree: TreeState = new Map();
  for (const [path, f] of before.files) {
    if (!f) continue;
    const c = current.get(path);
    tree.set(path, { kind: 'f', ref: f.ref, size: f.size, mode: f.mode ?? (c?.kind === 'f' ? c.mode : 0o644) });
  }
  if (before.scope === 'tree') return { tree, coverage: 'all' };
  return { tree, coverage: new Set(before.files.keys()) };
}

export interface RestoreResult {
  preview: RestorePreview;
  applied: { written: number; deleted: number; preRestoreId: string; journalId: string } | null;
}

/** Plans, refuses on conflicts unless forced, takes a pre-restore checkpoint, applies, journals. */
export async function restore(
  projectRoot: string,
  target: RestoreTarget,
  opts: { agentRoot?: string | null; dryRun?: boolean; force?: boolean; now?: () => number; withDiffs?: boolean; writeHook?: WriteHook; journalGroup?: string } = {},
): Promise<RestoreResult> {
  // Never under an agent mid-turn (its next write would land on the restored files); --force does not pass this.
  if (!opts.dryRun) await refuseWhileBusy(projectRoot, target);
  // A restore killed earlier is finished first (the CLI does it and says so at start; this covers the window).
  if (!opts.dryRun) await recoverPending(projectRoot);
  // Diffs are for showing: only a preview that asks for them computes them, never the write path.
  const ctx = await previewRestore(projectRoot, target, { ...opts, withDiffs: !!opts.dryRun && opts.withDiffs !== false });
  const { plan } = ctx.preview;
  if (opts.dryRun) return { preview: ctx.preview, applied: null };
  if (plan.conflicts > 0 && !opts.force) {
    const list = plan.changes.filter((c) => c.conflict).map((c) => c.path);
    throw new RewindError('CONFLICT', `${plural(list.length, 'file')} changed outside the agent would be overwritten: ${list.slice(0, 5).join(', ')}${list.length > 5 ? ', ...' : ''} (pass --force to restore anyway; a pre-restore checkpoint keeps them)`);
  }
  const label = `restoring ${target.checkpoint?.id ?? target.promptUuid}`;
  const checkpointId = target.checkpoint?.id ?? `${target.agent ?? 'agent'}:${target.promptUuid}`;
  const applied = await applyRecorded(projectRoot, { ...ctx, plan }, {
    op: 'restore',
    label,
    now: opts.now,
    writeHook: opts.writeHook,
    record: (id, time, preRestoreCheckpointId) => ({ kind: 'restore', id, ...(opts.journalGroup ? { group: opts.journalGroup } : {}), time, checkpointId, preRestoreCheckpointId }),
  });
  return { preview: ctx.preview, applied };
}

/** An agent busy in the project (its open-session markers) refuses the restore; loaded lazily (the registry is not on this module's path). */
async function refuseWhileBusy(projectRoot: string, target: RestoreTarget): Promise<void> {
  const { rootsFor } = await import('../agents/registry.js');
  const { refuseRestoreWhileBusy } = await import('../agents/open-session.js');
  await refuseRestoreWhileBusy(projectRoot, rootsFor(process.env), target.transcriptPath);
}

/** A record of a multi-file write: it names the checkpoints taken around it. */
type TreeRecord = Extract<JournalRecord, { kind: 'restore' | 'revert' | 'redo' }>;

/**
 * The write half of every tree-changing action (restore, revert, redo): paths checked, a
 * pre-action checkpoint of the tree as read, the plan applied all or nothing under an intent, a
 * post-action checkpoint of the paths written, then one journal record naming both.
 */
export async function applyRecorded(
  projectRoot: string,
  ctx: { plan: RestorePlan; current: TreeState; readBlob: (ref: string) => Promise<Buffer>; keepDirs: Set<string> },
  o: { op: IntentSpec['op']; label: string; now?: () => number; writeHook?: WriteHook; record: (id: string, time: string, preRestoreCheckpointId: string) => TreeRecord },
): Promise<{ written: number; deleted: number; preRestoreId: string; journalId: string }> {
  const { plan } = ctx;
  const { validatePlanPaths } = await import('./restore-apply.js');
  await validatePlanPaths(projectRoot, plan);
  const pre = await takeCheckpoint({ projectRoot, trigger: 'pre-restore', label: `before ${o.label}`, fromState: ctx.current, now: o.now });
  const { randomUUID } = await import('node:crypto');
  const journalId = randomUUID();
  const record = o.record(journalId, new Date((o.now ?? Date.now)()).toISOString(), pre.manifest.id);
  const tx = { op: o.op, preRestoreCheckpointId: pre.manifest.id, onComplete: record };
  const { r, intent } = await applyTx(projectRoot, plan, ctx.readBlob, ctx.keepDirs, tx, o.writeHook);
  // The state we left, so an undo can tell later edits apart: only the paths we wrote are read.
  const post = await takeCheckpoint({
    projectRoot,
    trigger: 'post-restore',
    label: `after ${o.label}`,
    touched: plan.changes.filter((c) => c.after?.kind !== 'd' && c.before?.kind !== 'd').map((c) => c.path),
    now: o.now,
  });
  const { appendJournal } = await import('../journal/record.js');
  await appendJournal(projectRoot, { ...record, postRestoreCheckpointId: post.manifest.id });
  if (intent) await finishIntent(projectRoot, intent);
  return { ...r, preRestoreId: pre.manifest.id, journalId };
}

/** The paths two checkpoints disagree on (files and symlinks): what the action between them touched. */
export function touchedBetween(a: TreeState, b: TreeState): string[] {
  const out: string[] = [];
  for (const p of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(p);
    const y = b.get(p);
    if (x?.kind === 'd' || y?.kind === 'd') continue;
    if (!x || !y || x.kind !== y.kind || x.ref !== y.ref || (x.mode & 0o111) !== (y.mode & 0o111)) out.push(p);
  }
  return out.sort();
}

/**
 * Puts the tree back as it was before a restore (or a revert); edits made since are conflicts.
 * `scoped`: only the paths the action itself changed go back (undoing an action that is not the
 * newest, or a revert); otherwise the whole tree, as the newest restore's undo always did.
 */
export async function undoRestore(
  projectRoot: string,
  rec: { preRestoreCheckpointId: string; postRestoreCheckpointId?: string },
  opts: { dryRun?: boolean; force?: boolean; now?: () => number; undoRecord?: Extract<JournalRecord, { kind: 'undo' }>; writeHook?: WriteHook; scoped?: boolean; current?: TreeState } = {},
): Promise<RestorePlan & { finish?: () => Promise<void> }> {
  const pre = await readManifest(projectRoot, rec.preRestoreCheckpointId);
  const post = rec.postRestoreCheckpointId ? await readManifest(projectRoot, rec.postRestoreCheckpointId).catch(() => null) : null;
  const current = opts.current ?? (await currentTree(projectRoot, await latestManifest(projectRoot)));
  const preTree = treeFromEntries(pre.entries);
  if (opts.scoped && !post) throw new RewindError('UNDO_MISMATCH', 'this action kept no record of the state it left: only the newest action can be undone');
  const plan = planRestore({
    target: preTree,
    current,
    expected: post ? treeFromEntries(post.entries) : null,
    coverage: opts.scoped && post ? new Set(touchedBetween(preTree, treeFromEntries(post.entries))) : 'all',
    leaveAlone: new Set(pre.skipped.map((x) => x.path)),
  });
  if (opts.dryRun) return plan;
  if (plan.conflicts > 0 && !opts.force) {
    throw new RewindError('CONFLICT', `files changed since the restore: ${plan.changes.filter((c) => c.conflict).map((c) => c.path).slice(0, 5).join(', ')} (pass --force to undo anyway)`);
  }
  const before = await takeCheckpoint({ projectRoot, trigger: 'pre-restore', label: 'before undoing a restore', fromState: current, now: opts.now });
  const objects = objectStore(projectRoot);
  // A redo puts back the tree as it was before this undo: the undo record names it.
  if (opts.undoRecord) opts.undoRecord.preUndoCheckpointId = before.manifest.id;
  const tx = { op: 'undo-restore' as const, preRestoreCheckpointId: before.manifest.id, onComplete: opts.undoRecord ?? null };
  const { intent } = await applyTx(projectRoot, plan, (ref) => objects.read(ref), new Set(pre.entries.filter((e) => e[1] === 'd').map((e) => e[0])), tx, opts.writeHook);
  const after = await takeCheckpoint({ projectRoot, trigger: 'post-restore', label: 'after undoing a restore', touched: plan.changes.filter((c) => c.after?.kind !== 'd' && c.before?.kind !== 'd').map((c) => c.path), now: opts.now });
  if (opts.undoRecord) opts.undoRecord.postUndoCheckpointId = after.manifest.id;
  return Object.assign(plan, { finish: async () => { if (intent) await finishIntent(projectRoot, intent); } });
}

/** applyPlan under an intent record, keeping the intent so the caller closes it after its journal entry. */
async function applyTx(
  projectRoot: string,
  plan: RestorePlan,
  readBlob: (ref: string) => Promise<Buffer>,
  keepDirs: Set<string>,
  tx: IntentSpec,
  writeHook?: WriteHook,
) {
  let intent: Intent | null = null;
  const r = await applyPlan(projectRoot, plan, readBlob, keepDirs, {
    writeHook,
    intent: tx,
    onIntent: (i) => {
      intent = i;
    },
  });
  return { r, intent: intent as Intent | null };
}

