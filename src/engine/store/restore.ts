import { readFile } from 'node:fs/promises';
import { RewindError } from '../errors.js';
import type { SessionModel } from '../agents/claude/model.js';
import { nativeTarget } from '../agents/claude/native-restore.js';
import { readAgentWrites } from './agent-writes.js';
import { objectStore, takeCheckpoint } from './checkpoint.js';
import { latestManifest, listCheckpointIds, listCheckpoints, readManifest, type CheckpointSummary, type Manifest } from './manifest.js';
import { applyPlan, type WriteHook } from './restore-apply.js';
import { finishIntent, recoverPending, type Intent, type IntentSpec } from './restore-intent.js';
import type { JournalRecord } from '../journal.js';
import { diffChanges, type FileDiff } from './restore-diff.js';
import { planRestore, type RestorePlan } from './restore-plan.js';
import { currentTree, treeFromEntries, type TreeState } from './tree-state.js';
import { plural } from '../../shared/wording.js';

export type RestoreSource = 'rewind' | 'claude';

export interface RestoreTarget {
  source: RestoreSource;
  /** Our checkpoint (source rewind). */
  checkpoint: Manifest | null;
  /** The prompt it is the state before, when known. */
  promptUuid: string | null;
  /** Why this source and target were picked, in the user's words. */
  note: string;
}

export interface RestorePreview {
  target: RestoreTarget;
  plan: RestorePlan;
  diffs: FileDiff[];
  skipped: { path: string; size: number; reason: string }[];
  outside: string[];
}

export interface ResolveOptions {
  projectRoot: string;
  /** checkpoint id (or prefix), a prompt uuid, or @n (the n-th newest checkpoint). */
  ref: string;
  source?: RestoreSource;
  /** Needed for prompt uuids and for the claude source. */
  session?: SessionModel | null;
}

/** A prompt uuid (what `restore` accepts besides checkpoint ids and @n). */
export const PROMPT_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Our checkpoint taken right before a prompt: tied by prompt uuid, or by the hook's prompt_id. */
export async function checkpointForPrompt(projectRoot: string, promptUuid: string, session: SessionModel | null): Promise<Manifest | null> {
  const promptId = session?.prompts.find((p) => p.uuid === promptUuid)?.promptId ?? null;
  return newestReadable(projectRoot, (c) => c.trigger === 'prompt' && !!c.transcript && (c.transcript.prompt_uuid === promptUuid || (!!promptId && c.transcript.prompt_id === promptId)));
}

/**
 * The newest checkpoint whose index entry matches, read whole. The index holds each checkpoint's
 * transcript cursor, so only matching manifests are read; an unreadable one is passed over.
 */
async function newestReadable(projectRoot: string, match: (c: CheckpointSummary) => boolean): Promise<Manifest | null> {
  const list = await listCheckpoints(projectRoot);
  for (let i = list.length - 1; i >= 0; i--) {
    if (!match(list[i]!)) continue;
    const m = await readManifest(projectRoot, list[i]!.id).catch(() => null);
    if (m) return m;
  }
  return null;
}

/**
 * The code state to go with a chat rewind: our checkpoint taken before the first reverted prompt,
 * else the newest one taken on this transcript at or before the cut, else Claude's own history.
 */
export async function targetForRewind(projectRoot: string, session: SessionModel, promptUuid: string, boundaryOffset: number): Promise<RestoreTarget | null> {
  const exact = await checkpointForPrompt(projectRoot, promptUuid, session);
  if (exact) return { source: 'rewind', checkpoint: exact, promptUuid, note: `Rewind checkpoint ${exact.id} (taken before that prompt)` };
  const m = await newestReadable(projectRoot, (c) => c.transcript?.transcript_path === session.transcriptPath && c.transcript.byte_offset_end <= boundaryOffset);
  if (m) return { source: 'rewind', checkpoint: m, promptUuid, note: `Rewind checkpoint ${m.id} (the newest before that prompt)` };
  if (session.snapshots.has(promptUuid)) return { source: 'claude', checkpoint: null, promptUuid, note: "Claude's own file history (no Rewind checkpoint): only files Claude edited are restored" };
  return null;
}

export async function resolveRestoreTarget(o: ResolveOptions): Promise<RestoreTarget> {
  const ids = await listCheckpointIds(o.projectRoot);
  if (o.source !== 'claude') {
    if (/^@\d+$/.test(o.ref)) {
      const n = Number(o.ref.slice(1));
      if (n < 1) throw new RewindError('USAGE', '@n counts from 1 (the newest checkpoint)');
      const id = ids[ids.length - n];
      if (!id) throw new RewindError('NO_CHECKPOINT', `there are only ${ids.length} checkpoints`);
      const m = await readManifest(o.projectRoot, id);
      return { source: 'rewind', checkpoint: m, promptUuid: m.transcript?.prompt_uuid ?? null, note: `Rewind checkpoint ${id}` };
    }
    if (PROMPT_UUID.test(o.ref)) {
      const m = await checkpointForPrompt(o.projectRoot, o.ref, o.session ?? null);
      if (m) return { source: 'rewind', checkpoint: m, promptUuid: o.ref, note: `Rewind checkpoint ${m.id} (taken before that prompt)` };
      if (o.source === 'rewind') throw new RewindError('NO_CHECKPOINT', `no Rewind checkpoint for prompt ${o.ref} (were the hooks installed then?)`);
      return { source: 'claude', checkpoint: null, promptUuid: o.ref, note: "Claude's own file history (no Rewind checkpoint for that prompt): only files Claude edited are restored" };
    }
    const matches = ids.filter((id) => id.startsWith(o.ref));
    if (matches.length === 1) {
      const m = await readManifest(o.projectRoot, matches[0]!);
      return { source: 'rewind', checkpoint: m, promptUuid: m.transcript?.prompt_uuid ?? null, note: `Rewind checkpoint ${m.id}` };
    }
    if (matches.length > 1) throw new RewindError('USAGE', `checkpoint id prefix "${o.ref}" is ambiguous (${matches.length} match)`);
    throw new RewindError('NO_CHECKPOINT', `no checkpoint "${o.ref}" (see rewind-app checkpoints)`);
  }
  if (!PROMPT_UUID.test(o.ref)) throw new RewindError('USAGE', "--source claude takes a prompt uuid (see rewind-app timeline)");
  return { source: 'claude', checkpoint: null, promptUuid: o.ref, note: "Claude's own file history: only files Claude edited are restored" };
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
  opts: { session?: SessionModel | null; claudeRoot?: string; withDiffs?: boolean } = {},
): Promise<PreviewContext> {
  const newest = await latestManifest(projectRoot);
  const current = await currentTree(projectRoot, newest);
  const expected = await expectedTree(projectRoot, newest);
  const objects = objectStore(projectRoot);
  if (target.source === 'rewind') {
    const m = target.checkpoint!;
    const leaveAlone = new Set(m.skipped.map((s) => s.path));
    const plan = planRestore({ target: treeFromEntries(m.entries), current, expected, coverage: 'all', leaveAlone });
    const readBlob = (ref: string) => objects.read(ref);
    const diffs = opts.withDiffs === false ? [] : await diffChanges(projectRoot, plan.changes, readBlob);
    const keepDirs = new Set(m.entries.filter((e) => e[1] === 'd').map((e) => e[0]));
    return { preview: { target, plan, diffs, skipped: m.skipped, outside: [] }, current, readBlob, keepDirs };
  }
  if (!opts.session || !opts.claudeRoot) throw new RewindError('NO_TRANSCRIPT', "restoring from Claude's file history needs the session's transcript");
  const native = await nativeTarget(opts.session, target.promptUuid!, opts.claudeRoot, projectRoot);
  // Claude restores contents and leaves modes as they are.
  for (const [p, t] of native.target) {
    const c = current.get(p);
    if (c?.kind === 'f') t.mode = c.mode;
  }
  const plan = planRestore({ target: native.target, current, expected, coverage: native.coverage });
  const readBlob = async (ref: string) => {
    const file = native.blobs.get(ref);
    if (file) return readFile(file);
    return objects.read(ref);
  };
  const diffs = opts.withDiffs === false ? [] : await diffChanges(projectRoot, plan.changes, readBlob);
  return { preview: { target, plan, diffs, skipped: [], outside: native.outside }, current, readBlob, keepDirs: new Set() };
}

export interface RestoreResult {
  preview: RestorePreview;
  applied: { written: number; deleted: number; preRestoreId: string; journalId: string } | null;
}

/** Plans, refuses on conflicts unless forced, takes a pre-restore checkpoint, applies, journals. */
export async function restore(
  projectRoot: string,
  target: RestoreTarget,
  opts: { session?: SessionModel | null; claudeRoot?: string; dryRun?: boolean; force?: boolean; now?: () => number; withDiffs?: boolean; writeHook?: WriteHook; journalGroup?: string } = {},
): Promise<RestoreResult> {
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
  const { validatePlanPaths } = await import('./restore-apply.js');
  await validatePlanPaths(projectRoot, plan);
  const pre = await takeCheckpoint({ projectRoot, trigger: 'pre-restore', label: `before restoring ${target.checkpoint?.id ?? target.promptUuid}`, fromState: ctx.current, now: opts.now });
  const { randomUUID } = await import('node:crypto');
  const journalId = randomUUID();
  const record = {
    kind: 'restore' as const,
    id: journalId,
    ...(opts.journalGroup ? { group: opts.journalGroup } : {}),
    time: new Date((opts.now ?? Date.now)()).toISOString(),
    checkpointId: target.checkpoint?.id ?? `claude:${target.promptUuid}`,
    preRestoreCheckpointId: pre.manifest.id,
  };
  const tx = { op: 'restore' as const, preRestoreCheckpointId: pre.manifest.id, onComplete: record };
  const { r, intent } = await applyTx(projectRoot, plan, ctx.readBlob, ctx.keepDirs, tx, opts.writeHook);
  // The state we left, so an undo can tell later edits apart: only the paths we wrote are read.
  const post = await takeCheckpoint({
    projectRoot,
    trigger: 'post-restore',
    label: `after restoring ${target.checkpoint?.id ?? target.promptUuid}`,
    touched: plan.changes.filter((c) => c.after?.kind !== 'd' && c.before?.kind !== 'd').map((c) => c.path),
    now: opts.now,
  });
  const { appendJournal } = await import('../journal.js');
  await appendJournal(projectRoot, { ...record, postRestoreCheckpointId: post.manifest.id });
  if (intent) await finishIntent(projectRoot, intent);
  return { preview: ctx.preview, applied: { ...r, preRestoreId: pre.manifest.id, journalId } };
}

/** Puts the tree back as it was before a restore; edits made since the restore are conflicts. */
export async function undoRestore(
  projectRoot: string,
  rec: { preRestoreCheckpointId: string; postRestoreCheckpointId?: string },
  opts: { dryRun?: boolean; force?: boolean; now?: () => number; undoRecord?: JournalRecord; writeHook?: WriteHook } = {},
): Promise<RestorePlan & { finish?: () => Promise<void> }> {
  const pre = await readManifest(projectRoot, rec.preRestoreCheckpointId);
  const post = rec.postRestoreCheckpointId ? await readManifest(projectRoot, rec.postRestoreCheckpointId).catch(() => null) : null;
  const current = await currentTree(projectRoot, await latestManifest(projectRoot));
  const plan = planRestore({
    target: treeFromEntries(pre.entries),
    current,
    expected: post ? treeFromEntries(post.entries) : null,
    coverage: 'all',
    leaveAlone: new Set(pre.skipped.map((x) => x.path)),
  });
  if (opts.dryRun) return plan;
  if (plan.conflicts > 0 && !opts.force) {
    throw new RewindError('CONFLICT', `files changed since the restore: ${plan.changes.filter((c) => c.conflict).map((c) => c.path).slice(0, 5).join(', ')} (pass --force to undo anyway)`);
  }
  const before = await takeCheckpoint({ projectRoot, trigger: 'pre-restore', label: 'before undoing a restore', now: opts.now });
  const objects = objectStore(projectRoot);
  const tx = { op: 'undo-restore' as const, preRestoreCheckpointId: before.manifest.id, onComplete: opts.undoRecord ?? null };
  const { intent } = await applyTx(projectRoot, plan, (ref) => objects.read(ref), new Set(pre.entries.filter((e) => e[1] === 'd').map((e) => e[0])), tx, opts.writeHook);
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

