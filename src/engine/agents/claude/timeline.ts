import type { Timeline, TimelinePrompt } from '../../../shared/session-schema.js';
import type { CommandNode, CompactionNode, NativeSnapshot, PromptNode, SessionModel, Turn } from './model.js';
import { findBranchRoot, type ModelStep } from './session-builder.js';
import { sessionCounts } from '../../sessions/counts.js';

/** The stable timeline document (what `timeline --json`, IPC and HTTP return) from a model. */
export function toTimeline(model: SessionModel): Timeline {
  const laneOfRoot = new Map<string, number>();
  const rootCache = new Map<string, { forkPoint: string; root: string } | null>();
  const promptOfNode = (uuid: string | null) => promptAbove(model, uuid);
  let liveNumber = 0;
  const prompts: TimelinePrompt[] = model.prompts.map((p, i) => {
    const active = model.active.has(p.uuid);
    let lane = 0;
    let forkPoint: string | null = null;
    if (!active) {
      const node = model.nodes.get(p.uuid);
      const found = node ? findBranchRoot(node, model.nodes, model.active, rootCache) : null;
      if (found) {
        forkPoint = found.forkPoint;
        if (!laneOfRoot.has(found.root)) laneOfRoot.set(found.root, laneOfRoot.size + 1);
        lane = laneOfRoot.get(found.root)!;
      } else {
        lane = laneOfRoot.size + 1;
      }
    }
    return promptDoc(model, p, i, active ? ++liveNumber : null, lane, forkPoint, promptOfNode(p.parentUuid));
  });
  const counts = sessionCounts(model);
  return {
    session: sessionDoc(model),
    prompts,
    commands: model.commands.map((c) => commandDoc(model, c)),
    compactions: model.compactions.map((c) => compactionDoc(model, c)),
    branches: [...model.branchPoints].map(([forkPoint, children]) => {
      const liveChild = children.find((c) => model.active.has(c)) ?? null;
      return {
        forkPoint,
        afterPromptUuid: promptOfNode(forkPoint),
        liveChild,
        deadRoots: children.filter((c) => c !== liveChild),
      };
    }),
    subagents: model.subagents,
    activeLeaf: model.activeLeaf,
    stats: {
      lines: model.lineCount,
      messages: model.order.length,
      prompts: prompts.length,
      activePrompts: counts.livePrompts,
      deadPrompts: counts.abandonedPrompts,
    },
    issues: model.issues,
  };
}

/** The prompt a node belongs to: the nearest prompt at or above it. `known` answers for nodes already resolved. */
export function promptAbove(model: Pick<SessionModel, 'nodes'>, uuid: string | null, known?: { uuid: string; prompt: string | null }): string | null {
  let cur = uuid ? model.nodes.get(uuid) : undefined;
  const seen = new Set<string>();
  while (cur && !seen.has(cur.uuid)) {
    seen.add(cur.uuid);
    if (cur.userKind === 'prompt') return cur.uuid;
    if (known && cur.uuid === known.uuid) return known.prompt;
    const p: string | null = cur.parentUuid ?? cur.logicalParentUuid;
    cur = p ? model.nodes.get(p) : undefined;
  }
  return null;
}

function promptDoc(model: SessionModel, p: PromptNode, i: number, number: number | null, lane: number, forkPoint: string | null, parentPrompt: string | null): TimelinePrompt {
  return {
    uuid: p.uuid,
    index: i + 1,
    number,
    text: p.text,
    images: p.images,
    timestamp: p.timestamp,
    byteOffset: p.offset,
    byteLength: p.length,
    line: p.line + 1,
    active: number !== null,
    parentUuid: p.parentUuid,
    parentPrompt,
    promptId: p.promptId,
    lane,
    forkPoint,
    turn: turnDoc(p.turn),
    nativeCheckpoint: nativeCheckpointOf(model.snapshots.get(p.uuid), p.turn.filesTouched),
    checkpoint: null,
  };
}

function turnDoc(t: Turn): TimelinePrompt['turn'] {
  return {
    assistantMessages: t.assistantMessages,
    toolCalls: t.toolCalls.map((c) => ({ name: c.name, summary: c.summary, filePath: c.filePath })),
    filesTouched: t.filesTouched,
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    cacheReadTokens: t.cacheReadTokens,
    cacheWriteTokens: t.cacheWriteTokens,
    model: t.model,
    durationMs: t.durationMs,
    messageCount: t.messageCount,
  };
}

function sessionDoc(model: SessionModel): Timeline['session'] {
  return {
    id: model.sessionId,
    agent: 'claude',
    title: model.title,
    cwd: model.cwd,
    transcriptPath: model.transcriptPath,
    version: model.version,
    gitBranch: model.gitBranch,
    sizeBytes: model.size,
    firstTimestamp: model.firstTimestamp,
    lastTimestamp: model.lastTimestamp,
    readOnly: null,
  };
}

function commandDoc(model: SessionModel, c: CommandNode): Timeline['commands'][number] {
  return { uuid: c.uuid, name: c.name, args: c.args, timestamp: c.timestamp, byteOffset: c.offset, active: model.active.has(c.uuid), afterPromptUuid: c.afterPromptUuid, ...(c.tokens ? { tokens: { ...c.tokens } } : {}) };
}

function compactionDoc(model: SessionModel, c: CompactionNode): Timeline['compactions'][number] {
  return {
    uuid: c.uuid,
    logicalParentUuid: c.logicalParentUuid,
    timestamp: c.timestamp,
    byteOffset: c.offset,
    trigger: c.trigger,
    preTokens: c.preTokens,
    active: model.active.has(c.uuid),
    afterPromptUuid: c.afterPromptUuid,
  };
}

/** What `extendTimeline` carries from one step to the next. */
export interface TimelineCursor {
  /** The prompt the live path's leaf belongs to (promptAbove of the leaf). */
  leafPrompt: string | null;
}

export function cursorOf(model: SessionModel): TimelineCursor {
  return { leafPrompt: promptAbove(model, model.activeLeaf) };
}

/**
 * The timeline after an incremental model step (`SessionBuilder.extend`), from the previous one:
 * only new prompts and prompts whose turn grew are made again; the rest of the document is reused
 * (its arrays are extended in place). Equals `toTimeline(step.model)`.
 */
export function extendTimeline(prev: Timeline, cursor: TimelineCursor, step: ModelStep): { timeline: Timeline; upserts: TimelinePrompt[]; cursor: TimelineCursor; structural: boolean } {
  const { model, from } = step;
  const prompts = prev.prompts;
  const upserts: TimelinePrompt[] = [];
  for (const i of step.touched) {
    const p = model.prompts[i]!;
    const old = prompts[i]!;
    prompts[i] = { ...old, turn: turnDoc(p.turn), nativeCheckpoint: nativeCheckpointOf(model.snapshots.get(p.uuid), p.turn.filesTouched) };
    upserts.push(prompts[i]!);
  }
  // Every new prompt is on the live path (else the step would not exist), after every old one.
  const oldLeaf = prev.activeLeaf;
  const known = oldLeaf ? { uuid: oldLeaf, prompt: cursor.leafPrompt } : undefined;
  let live = prev.stats.activePrompts;
  for (let i = from.prompts; i < model.prompts.length; i++) {
    const p = model.prompts[i]!;
    prompts.push(promptDoc(model, p, i, ++live, 0, null, promptAbove(model, p.parentUuid, known)));
    upserts.push(prompts[i]!);
  }
  // Before the first prompt a command's tokens grow with its turns (`/init`): its document too.
  let commandTurns = false;
  if (from.prompts === 0) {
    for (let i = 0; i < from.commands; i++) {
      const c = model.commands[i]!;
      if (c.tokens && c.tokens.input + c.tokens.output !== (prev.commands[i]!.tokens ? prev.commands[i]!.tokens!.input + prev.commands[i]!.tokens!.output : 0)) {
        prev.commands[i] = commandDoc(model, c);
        commandTurns = true;
      }
    }
  }
  for (let i = from.commands; i < model.commands.length; i++) prev.commands.push(commandDoc(model, model.commands[i]!));
  for (let i = from.compactions; i < model.compactions.length; i++) prev.compactions.push(compactionDoc(model, model.compactions[i]!));
  const timeline: Timeline = {
    ...prev,
    session: sessionDoc(model),
    prompts,
    subagents: model.subagents,
    activeLeaf: model.activeLeaf,
    stats: { lines: model.lineCount, messages: model.order.length, prompts: prompts.length, activePrompts: live, deadPrompts: prev.stats.deadPrompts },
    issues: model.issues,
  };
  const leafPrompt = model.activeLeaf === oldLeaf ? cursor.leafPrompt : promptAbove(model, model.activeLeaf, known);
  const structural = commandTurns || model.commands.length > from.commands || model.compactions.length > from.compactions;
  return { timeline, upserts, cursor: { leafPrompt }, structural };
}

function nativeCheckpointOf(snap: NativeSnapshot | undefined, edited: string[]): Timeline['prompts'][number]['nativeCheckpoint'] {
  if (!snap) return null;
  const files = new Map<string, { path: string; backupFileName: string | null; version: number; editedInTurn: boolean }>();
  for (const b of snap.snapshot.values()) files.set(b.path, { path: b.path, backupFileName: b.backupFileName, version: b.version, editedInTurn: false });
  for (const b of snap.deltas.values()) if (!files.has(b.path)) files.set(b.path, { path: b.path, backupFileName: b.backupFileName, version: b.version, editedInTurn: false });
  const editedSet = new Set(edited);
  for (const f of files.values()) f.editedInTurn = editedSet.has(f.path);
  return { files: [...files.values()] };
}
