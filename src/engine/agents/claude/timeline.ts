import type { Timeline, TimelinePrompt } from '../../../shared/session-schema.js';
import type { NativeSnapshot, SessionModel } from './model.js';
import { findBranchRoot } from './session-builder.js';
import { sessionCounts } from '../../session-counts.js';

/** The stable timeline document (what `timeline --json`, IPC and HTTP return) from a model. */
export function toTimeline(model: SessionModel): Timeline {
  const laneOfRoot = new Map<string, number>();
  const rootCache = new Map<string, { forkPoint: string; root: string } | null>();
  const promptOfNode = (uuid: string | null): string | null => {
    // The prompt a node belongs to: the nearest prompt at or above it.
    let cur = uuid ? model.nodes.get(uuid) : undefined;
    const seen = new Set<string>();
    while (cur && !seen.has(cur.uuid)) {
      seen.add(cur.uuid);
      if (cur.userKind === 'prompt') return cur.uuid;
      const p: string | null = cur.parentUuid ?? cur.logicalParentUuid;
      cur = p ? model.nodes.get(p) : undefined;
    }
    return null;
  };
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
    const t = p.turn;
    return {
      uuid: p.uuid,
      index: i + 1,
      number: active ? ++liveNumber : null,
      text: p.text,
      images: p.images,
      timestamp: p.timestamp,
      byteOffset: p.offset,
      byteLength: p.length,
      line: p.line + 1,
      active,
      parentUuid: p.parentUuid,
      parentPrompt: promptOfNode(p.parentUuid),
      promptId: p.promptId,
      lane,
      forkPoint,
      turn: {
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
      },
      nativeCheckpoint: nativeCheckpointOf(model.snapshots.get(p.uuid), t.filesTouched),
      checkpoint: null,
    };
  });
  const counts = sessionCounts(model);
  return {
    session: {
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
    },
    prompts,
    commands: model.commands.map((c) => ({
      uuid: c.uuid,
      name: c.name,
      args: c.args,
      timestamp: c.timestamp,
      byteOffset: c.offset,
      active: model.active.has(c.uuid),
      afterPromptUuid: c.afterPromptUuid,
    })),
    compactions: model.compactions.map((c) => ({
      uuid: c.uuid,
      logicalParentUuid: c.logicalParentUuid,
      timestamp: c.timestamp,
      byteOffset: c.offset,
      trigger: c.trigger,
      preTokens: c.preTokens,
      active: model.active.has(c.uuid),
      afterPromptUuid: c.afterPromptUuid,
    })),
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

function nativeCheckpointOf(snap: NativeSnapshot | undefined, edited: string[]): Timeline['prompts'][number]['nativeCheckpoint'] {
  if (!snap) return null;
  const files = new Map<string, { path: string; backupFileName: string | null; version: number; editedInTurn: boolean }>();
  for (const b of snap.snapshot.values()) files.set(b.path, { path: b.path, backupFileName: b.backupFileName, version: b.version, editedInTurn: false });
  for (const b of snap.deltas.values()) if (!files.has(b.path)) files.set(b.path, { path: b.path, backupFileName: b.backupFileName, version: b.version, editedInTurn: false });
  const editedSet = new Set(edited);
  for (const f of files.values()) f.editedInTurn = editedSet.has(f.path);
  return { files: [...files.values()] };
}
