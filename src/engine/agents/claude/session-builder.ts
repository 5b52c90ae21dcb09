import { parseJsonLine } from '../../io/json-line.js';
import { oneLine } from '../../turn/text.js';
import type { RawLine } from '../../io/line-splitter.js';
import { classifyUser, isObject, parseCommand, readUserContent, str, type Json } from './classify.js';
import type {
  CommandNode,
  CompactionNode,
  MessageNode,
  MessageType,
  NativeBackup,
  NativeSnapshot,
  ParseIssue,
  PromptNode,
  SessionModel,
  SubagentRun,
  ToolCall,
  Turn,
} from './model.js';

const MESSAGE_TYPES = new Set<string>(['user', 'assistant', 'system', 'attachment', 'progress']);
/** Only these can be the leaf a resume continues from. */
const LEAF_TYPES = new Set<string>(['user', 'assistant', 'system', 'attachment']);
const EDIT_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);
const MAX_SUMMARY = 200;

export function emptyTurn(): Turn {
  return {
    assistantMessages: 0,
    toolCalls: [],
    filesTouched: [],
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    model: null,
    endTimestamp: null,
    durationMs: null,
    messageCount: 0,
    lastUuid: null,
  };
}

function summarizeToolInput(name: string, input: Json): { filePath: string | null; summary: string } {
  const filePath = str(input.file_path) ?? str(input.notebook_path) ?? str(input.path) ?? null;
  let summary: string | undefined;
  if (name === 'Bash') summary = str(input.command);
  else if (SUBAGENT_TOOLS.has(name)) summary = str(input.description) ?? str(input.prompt);
  else if (filePath) summary = filePath;
  else summary = str(input.pattern) ?? str(input.query) ?? str(input.url) ?? Object.values(input).find((v): v is string => typeof v === 'string');
  summary = (summary ?? '').replace(/\s+/g, ' ').trim();
  return { filePath, summary: summary.length > MAX_SUMMARY ? `${summary.slice(0, MAX_SUMMARY - 1)}…` : summary };
}

function readBackup(path: string, b: unknown): NativeBackup | null {
  if (!isObject(b)) return null;
  const backupFileName = b.backupFileName === null ? null : str(b.backupFileName);
  if (backupFileName === undefined) return null;
  return {
    path,
    backupFileName,
    version: typeof b.version === 'number' ? b.version : 0,
    backupTime: str(b.backupTime) ?? null,
  };
}

/**
 * Accumulates a transcript line by line (so a live file can be fed only its new bytes) and derives
 * the session model on demand.
 */
export class SessionBuilder {
  readonly nodes = new Map<string, MessageNode>();
  readonly order: MessageNode[] = [];
  readonly prompts: PromptNode[] = [];
  private readonly promptByUuid = new Map<string, PromptNode>();
  readonly commands: CommandNode[] = [];
  readonly compactions: CompactionNode[] = [];
  readonly snapshots = new Map<string, NativeSnapshot>();
  readonly issues: ParseIssue[] = [];
  readonly unknownTypes = new Map<string, number>();
  /** message uuid -> the prompt whose turn it belongs to. */
  private readonly promptOf = new Map<string, string | null>();
  private readonly seenApiMessageIds = new Set<string>();
  /** tool_use id -> prompt uuid, for attaching subagents. */
  readonly toolUsePrompt = new Map<string, string | null>();
  readonly subagentToolUses = new Map<string, { description: string | null; agentType: string | null; prompt: string | null }>();
  /** agentId -> tool_use id, learnt from tool results (2.0.x/2.1.x). */
  readonly agentToolUse = new Map<string, string>();
  readonly inlineSidechainRoots = new Map<string, { count: number; text: string }>();
  private readonly sidechainRootOf = new Map<string, string>();
  sessionId: string | null = null;
  cwd: string | null = null;
  version: string | null = null;
  gitBranch: string | null = null;
  customTitle: string | null = null;
  aiTitle: string | null = null;
  summaryTitle: string | null = null;
  firstTimestamp: string | null = null;
  lastTimestamp: string | null = null;
  lineCount = 0;
  /** Position of each prompt in `prompts` (and in the timeline's prompts). */
  private readonly promptIndex = new Map<string, number>();
  /** Prompts whose node, turn or native checkpoint changed since the last `mark()`. */
  private readonly touched = new Set<string>();
  /** Parents named before their own line was read: if one arrives, earlier nodes change meaning. */
  private readonly awaited = new Set<string>();
  /** Lines that change the tree's meaning for nodes already read (a repeated uuid, a late parent). */
  private reshaped = 0;

  addLine(line: RawLine): void {
    this.lineCount = line.index + 1;
    const parsed = parseJsonLine(line.bytes);
    if (!parsed.ok) {
      if (line.bytes.length === 0 || line.bytes.every((b) => b === 32 || b === 9)) return;
      this.issues.push({ line: line.index + 1, offset: line.offset, reason: parsed.reason });
      return;
    }
    this.addEntry(parsed.value, line);
  }

  addEntry(e: Json, line: RawLine): void {
    const type = e.type as string;
    if (MESSAGE_TYPES.has(type)) {
      this.addMessage(e, type as MessageType, line);
      return;
    }
    switch (type) {
      case 'file-history-snapshot':
        this.addSnapshot(e, line);
        return;
      case 'file-history-delta':
        this.addDelta(e, line);
        return;
      case 'custom-title':
        this.customTitle = str(e.customTitle) ?? str(e.title) ?? this.customTitle;
        return;
      case 'ai-title':
        this.aiTitle = str(e.aiTitle) ?? str(e.title) ?? this.aiTitle;
        return;
      case 'summary':
        this.summaryTitle = str(e.summary) ?? this.summaryTitle;
        return;
      case 'queue-operation':
      case 'last-prompt':
      case 'tag':
      case 'mode':
      case 'cost-state':
      case 'tools-used':
      case 'api-request':
      case 'api-request-blob':
      case 'api-request-shape':
      case 'atis-latch':
      case 'pr-link':
      case 'worktree-state':
      case 'agent-name':
        return;
      default:
        this.unknownTypes.set(type, (this.unknownTypes.get(type) ?? 0) + 1);
    }
  }

  private addMessage(e: Json, type: MessageType, line: RawLine): void {
    const uuid = str(e.uuid);
    if (!uuid) {
      // Old `progress` lines and a few system lines carry no uuid: nothing to chain.
      if (type !== 'progress' && type !== 'system') {
        this.issues.push({ line: line.index + 1, offset: line.offset, reason: `${type} line without uuid` });
      }
      return;
    }
    const timestamp = str(e.timestamp) ?? null;
    if (timestamp) {
      if (!this.firstTimestamp) this.firstTimestamp = timestamp;
      this.lastTimestamp = timestamp;
    }
    const isSidechain = e.isSidechain === true;
    if (!isSidechain) {
      this.sessionId ??= str(e.sessionId) ?? null;
      this.cwd ??= str(e.cwd) ?? null;
      this.version = str(e.version) ?? this.version;
      this.gitBranch = str(e.gitBranch) ?? this.gitBranch;
    }
    const parentUuid = str(e.parentUuid) ?? null;
    const logicalParentUuid = str(e.logicalParentUuid) ?? null;
    if (this.nodes.has(uuid) || this.awaited.delete(uuid)) this.reshaped++;
    const node: MessageNode = {
      uuid,
      parentUuid,
      logicalParentUuid,
      type,
      subtype: str(e.subtype) ?? null,
      isSidechain,
      line: line.index,
      offset: line.offset,
      length: line.length,
      timestamp,
      promptId: str(e.promptId) ?? null,
      userKind: null,
    };
    this.nodes.set(uuid, node);
    this.order.push(node);
    if (parentUuid && !this.nodes.has(parentUuid)) this.awaited.add(parentUuid);
    if (logicalParentUuid && !this.nodes.has(logicalParentUuid)) this.awaited.add(logicalParentUuid);

    if (isSidechain) {
      this.addSidechain(e, node);
      return;
    }

    const parentKey = parentUuid ?? logicalParentUuid;
    let owner: string | null = parentKey ? (this.promptOf.get(parentKey) ?? null) : null;

    if (type === 'user') {
      const content = readUserContent(e);
      const kind = classifyUser(e, content);
      node.userKind = kind;
      if (kind === 'prompt') {
        const prompt: PromptNode = {
          uuid,
          text: content.text,
          images: content.images,
          timestamp,
          line: line.index,
          offset: line.offset,
          length: line.length,
          parentUuid,
          promptId: node.promptId,
          turn: emptyTurn(),
        };
        this.promptIndex.set(uuid, this.prompts.length);
        this.prompts.push(prompt);
        this.promptByUuid.set(uuid, prompt);
        owner = uuid;
      } else if (kind === 'command') {
        const cmd = parseCommand(content.text);
        if (cmd) {
          this.commands.push({ uuid, ...cmd, timestamp, line: line.index, offset: line.offset, afterPromptUuid: owner });
        }
      } else if (kind === 'tool-result') {
        const agentId = str(e.agentId) ?? (isObject(e.toolUseResult) ? str(e.toolUseResult.agentId) : undefined);
        const toolUseId = content.toolResultIds[0];
        if (agentId && toolUseId) this.agentToolUse.set(agentId, toolUseId);
      }
    } else if (type === 'assistant') {
      this.addAssistant(e, owner);
    } else if (type === 'system' && node.subtype === 'compact_boundary') {
      const meta = isObject(e.compactMetadata) ? e.compactMetadata : {};
      this.compactions.push({
        uuid,
        logicalParentUuid,
        timestamp,
        line: line.index,
        offset: line.offset,
        trigger: str(meta.trigger) ?? null,
        preTokens: typeof meta.preTokens === 'number' ? meta.preTokens : null,
        afterPromptUuid: owner,
      });
    }

    this.promptOf.set(uuid, owner);
    const turnOwner = owner ? this.promptByUuid.get(owner) : undefined;
    if (turnOwner && turnOwner.uuid !== uuid) {
      this.touched.add(turnOwner.uuid);
      const turn = turnOwner.turn;
      turn.messageCount++;
      turn.lastUuid = uuid;
      if (timestamp) {
        turn.endTimestamp = timestamp;
        if (turnOwner.timestamp) {
          const d = Date.parse(timestamp) - Date.parse(turnOwner.timestamp);
          if (Number.isFinite(d)) turn.durationMs = Math.max(turn.durationMs ?? 0, d);
        }
      }
    }
  }

  private addAssistant(e: Json, owner: string | null): void {
    const message = isObject(e.message) ? e.message : undefined;
    if (!message) return;
    const turn = owner ? this.promptByUuid.get(owner)?.turn : undefined;
    const apiId = str(message.id);
    const firstOfResponse = !apiId || !this.seenApiMessageIds.has(apiId);
    if (apiId) this.seenApiMessageIds.add(apiId);
    // Before any prompt, under a command (`/init`): its tokens are the command's, or no cost counts them.
    const cmd = !owner && firstOfResponse ? this.commands.at(-1) : undefined;
    if (cmd && cmd.afterPromptUuid === null && isObject(message.usage)) {
      const usage = message.usage;
      const n = (k: string) => (typeof usage[k] === 'number' ? (usage[k] as number) : 0);
      const t = (cmd.tokens ??= { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, model: null });
      t.input += n('input_tokens') + n('cache_creation_input_tokens') + n('cache_read_input_tokens');
      t.output += n('output_tokens');
      t.cacheRead += n('cache_read_input_tokens');
      t.cacheWrite += n('cache_creation_input_tokens');
      const model = str(message.model);
      if (model && model !== '<synthetic>') t.model = model;
    }
    if (turn && firstOfResponse) {
      turn.assistantMessages++;
      const usage = isObject(message.usage) ? message.usage : undefined;
      if (usage) {
        const n = (k: string) => (typeof usage[k] === 'number' ? (usage[k] as number) : 0);
        turn.inputTokens += n('input_tokens') + n('cache_creation_input_tokens') + n('cache_read_input_tokens');
        turn.outputTokens += n('output_tokens');
        turn.cacheReadTokens += n('cache_read_input_tokens');
        turn.cacheWriteTokens += n('cache_creation_input_tokens');
      }
      // Claude Code writes "<synthetic>" for messages it made up itself (no model was asked).
      const model = str(message.model);
      if (model && model !== '<synthetic>') turn.model = model;
    }
    if (!Array.isArray(message.content)) return;
    for (const block of message.content) {
      if (!isObject(block) || block.type !== 'tool_use') continue;
      const id = str(block.id) ?? '';
      const name = str(block.name) ?? 'unknown';
      const input = isObject(block.input) ? block.input : {};
      const { filePath, summary } = summarizeToolInput(name, input);
      const call: ToolCall = { id, name, filePath, summary };
      this.toolUsePrompt.set(id, owner);
      if (SUBAGENT_TOOLS.has(name)) {
        this.subagentToolUses.set(id, {
          description: str(input.description) ?? null,
          agentType: str(input.subagent_type) ?? null,
          prompt: str(input.prompt) ?? null,
        });
      }
      if (turn) {
        turn.toolCalls.push(call);
        if (filePath && EDIT_TOOLS.has(name) && !turn.filesTouched.includes(filePath)) turn.filesTouched.push(filePath);
      }
    }
  }

  private addSidechain(e: Json, node: MessageNode): void {
    const parentRoot = node.parentUuid ? this.sidechainRootOf.get(node.parentUuid) : undefined;
    const root = parentRoot ?? node.uuid;
    this.sidechainRootOf.set(node.uuid, root);
    let entry = this.inlineSidechainRoots.get(root);
    if (!entry) {
      const text = node.type === 'user' ? readUserContent(e).text : '';
      entry = { count: 0, text };
      this.inlineSidechainRoots.set(root, entry);
    }
    entry.count++;
  }

  private addSnapshot(e: Json, line: RawLine): void {
    const messageId = str(e.messageId);
    const snap = isObject(e.snapshot) ? e.snapshot : undefined;
    if (!messageId || !snap) return;
    let target = this.snapshots.get(messageId);
    if (!target) {
      target = { promptUuid: messageId, snapshot: new Map(), deltas: new Map(), line: line.index };
      this.snapshots.set(messageId, target);
    }
    this.touched.add(messageId);
    const tracked = isObject(snap.trackedFileBackups) ? snap.trackedFileBackups : {};
    if (e.isSnapshotUpdate !== true) target.snapshot.clear();
    for (const [path, b] of Object.entries(tracked)) {
      const backup = readBackup(path, b);
      if (backup) target.snapshot.set(path, backup);
    }
  }

  private addDelta(e: Json, line: RawLine): void {
    const promptUuid = str(e.snapshotMessageId) ?? str(e.messageId);
    const path = str(e.trackingPath);
    if (!promptUuid || !path) return;
    const backup = readBackup(path, e.backup);
    if (!backup) return;
    let target = this.snapshots.get(promptUuid);
    if (!target) {
      target = { promptUuid, snapshot: new Map(), deltas: new Map(), line: line.index };
      this.snapshots.set(promptUuid, target);
    }
    if (!target.deltas.has(path)) target.deltas.set(path, backup);
    this.touched.add(promptUuid);
  }

  /** Derives the whole model (the live path and branch points over every message). */
  build(meta: BuildMeta): SessionModel {
    const { activeLeaf, active } = computeLivePath(this.order, this.nodes);
    const branchPoints = computeBranchPoints(this.order, this.nodes, active, this.promptByUuid);
    return this.model(meta, activeLeaf, active, branchPoints);
  }

  private model(meta: BuildMeta, activeLeaf: string | null, active: Set<string>, branchPoints: Map<string, string[]>): SessionModel {
    const firstPrompt = this.prompts[0];
    let title = '';
    let titleSource: SessionModel['titleSource'] = 'none';
    if (this.customTitle) [title, titleSource] = [this.customTitle, 'custom'];
    else if (this.aiTitle) [title, titleSource] = [this.aiTitle, 'ai'];
    else if (this.summaryTitle) [title, titleSource] = [this.summaryTitle, 'summary'];
    else if (firstPrompt) [title, titleSource] = [oneLine(firstPrompt.text, 80), 'prompt'];
    const issues = [...this.issues];
    if (meta.hasPartialLine) {
      issues.push({ line: this.lineCount + 1, offset: meta.endOffset, reason: 'incomplete last line (the agent may still be writing it)' });
    }
    return {
      sessionId: this.sessionId ?? sessionIdFromPath(meta.transcriptPath),
      transcriptPath: meta.transcriptPath,
      cwd: this.cwd,
      version: this.version,
      gitBranch: this.gitBranch,
      title,
      titleSource,
      size: meta.size,
      endOffset: meta.endOffset,
      lineCount: this.lineCount,
      hasPartialLine: meta.hasPartialLine,
      firstTimestamp: this.firstTimestamp,
      lastTimestamp: this.lastTimestamp,
      nodes: this.nodes,
      order: this.order,
      prompts: this.prompts,
      commands: this.commands,
      compactions: this.compactions,
      snapshots: this.snapshots,
      subagents: this.collectSubagents(meta.subagentFiles ?? []),
      issues,
      activeLeaf,
      active,
      branchPoints,
    };
  }

  /** Where the builder stands now: `extend` continues from here. Forgets what was touched so far. */
  mark(): BuildMark {
    this.touched.clear();
    return { nodes: this.order.length, prompts: this.prompts.length, commands: this.commands.length, compactions: this.compactions.length, reshaped: this.reshaped };
  }

  /**
   * The model after the lines added since `from`, derived from `prev` (the model at `from`) with
   * work proportional to the new messages, when they only extend the tree: the live path grows from
   * its old leaf (or stays), and no new prompt lies off it. Anything else (a new branch, a repeated
   * uuid, a parent read after its child, the old leaf gaining a child that is not a leaf) returns
   * null: the caller builds the whole model again. The result equals `build` (the tests compare
   * them line by line). `prev.active` is extended in place.
   */
  extend(prev: SessionModel, from: BuildMark, meta: BuildMeta): ModelStep | null {
    if (this.reshaped !== from.reshaped) return null;
    const fresh = this.order.slice(from.nodes);
    const isNew = new Set<string>();
    const parented = new Set<string>();
    for (const n of fresh) {
      isNew.add(n.uuid);
      if (n.parentUuid) parented.add(n.parentUuid);
    }
    // computeLivePath: the last leaf-type message outside sidechains without a child. A new one
    // comes after every old one; else the old leaf stays if it is still childless.
    let leaf: string | null = null;
    for (let i = fresh.length - 1; i >= 0; i--) {
      const n = fresh[i]!;
      if (!n.isSidechain && LEAF_TYPES.has(n.type) && !parented.has(n.uuid)) {
        leaf = n.uuid;
        break;
      }
    }
    const walked: string[] = [];
    if (leaf === null) {
      if (prev.activeLeaf !== null && parented.has(prev.activeLeaf)) return null;
      leaf = prev.activeLeaf;
    } else {
      // Up from the new leaf through new messages only, to the old leaf (or to the root when
      // there was no live path yet).
      let cur: string | null = leaf;
      while (cur !== null && cur !== prev.activeLeaf) {
        if (!isNew.has(cur) || walked.length > fresh.length) return null;
        walked.push(cur);
        const n: MessageNode | undefined = this.nodes.get(cur);
        cur = n ? (n.parentUuid ?? n.logicalParentUuid) : null;
        if (cur !== null && !this.nodes.has(cur)) cur = null;
      }
      if (cur === null && prev.activeLeaf !== null) return null;
      // The old leaf had no child; a branch hanging off it (through a logical parent) is a branch point.
      if (prev.activeLeaf !== null && walked.length > 0 && prev.branchPoints.has(prev.activeLeaf)) return null;
    }
    // A new prompt off the live path starts a branch: the branch points change.
    const joined = new Set(walked);
    for (let i = from.prompts; i < this.prompts.length; i++) if (!joined.has(this.prompts[i]!.uuid)) return null;
    const active = prev.active;
    for (const u of walked) active.add(u);
    const touched: number[] = [];
    for (const u of this.touched) {
      const i = this.promptIndex.get(u);
      if (i !== undefined && i < from.prompts) touched.push(i);
    }
    touched.sort((a, b) => a - b);
    return { model: this.model(meta, leaf, active, prev.branchPoints), from, walked, touched, messages: fresh.length };
  }

  private collectSubagents(files: SubagentFile[]): SubagentRun[] {
    const runs: SubagentRun[] = [];
    const seenToolUses = new Set<string>();
    for (const f of files) {
      const toolUseId = f.toolUseId ?? (f.agentId ? this.agentToolUse.get(f.agentId) : undefined) ?? null;
      const call = toolUseId ? this.subagentToolUses.get(toolUseId) : undefined;
      if (toolUseId) seenToolUses.add(toolUseId);
      runs.push({
        agentId: f.agentId,
        toolUseId,
        agentType: f.agentType ?? call?.agentType ?? null,
        description: f.description ?? call?.description ?? null,
        transcriptPath: f.path,
        inline: false,
        messageCount: f.messageCount,
        promptUuid: toolUseId ? (this.toolUsePrompt.get(toolUseId) ?? null) : null,
      });
    }
    for (const [rootUuid, root] of this.inlineSidechainRoots) {
      let toolUseId: string | null = null;
      for (const [id, call] of this.subagentToolUses) {
        if (!seenToolUses.has(id) && call.prompt && root.text && call.prompt.trim() === root.text.trim()) {
          toolUseId = id;
          seenToolUses.add(id);
          break;
        }
      }
      const call = toolUseId ? this.subagentToolUses.get(toolUseId) : undefined;
      runs.push({
        agentId: rootUuid,
        toolUseId,
        agentType: call?.agentType ?? null,
        description: call?.description ?? oneLine(root.text, 80),
        transcriptPath: null,
        inline: true,
        messageCount: root.count,
        promptUuid: toolUseId ? (this.toolUsePrompt.get(toolUseId) ?? null) : null,
      });
    }
    return runs;
  }
}

export interface BuildMeta {
  transcriptPath: string;
  size: number;
  endOffset: number;
  hasPartialLine: boolean;
  subagentFiles?: SubagentFile[];
}

/** Counts of what the builder held at a point (see `mark`). */
export interface BuildMark {
  nodes: number;
  prompts: number;
  commands: number;
  compactions: number;
  reshaped: number;
}

/** One incremental step: the new model and what changed (prompts before `from.prompts` in `touched`). */
export interface ModelStep {
  model: SessionModel;
  from: BuildMark;
  /** Messages that joined the live path, from the new leaf up. */
  walked: string[];
  /** Indexes of earlier prompts whose turn or checkpoint changed. */
  touched: number[];
  /** New messages looked at. */
  messages: number;
}

export interface SubagentFile {
  path: string;
  agentId: string | null;
  toolUseId: string | null;
  agentType: string | null;
  description: string | null;
  messageCount: number;
}


export function sessionIdFromPath(p: string): string {
  const base = p.split(/[\\/]/).pop() ?? p;
  return base.endsWith('.jsonl') ? base.slice(0, -'.jsonl'.length) : base;
}

/**
 * The path `claude --resume` takes: the newest leaf outside sidechains (last written), up through
 * `parentUuid`; we continue through `logicalParentUuid` across compactions so the whole history
 * shows.
 */
export function computeLivePath(order: MessageNode[], nodes: Map<string, MessageNode>): { activeLeaf: string | null; active: Set<string> } {
  const hasChild = new Set<string>();
  for (const n of order) if (n.parentUuid) hasChild.add(n.parentUuid);
  let leaf: MessageNode | undefined;
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!;
    if (!n.isSidechain && LEAF_TYPES.has(n.type) && !hasChild.has(n.uuid)) {
      leaf = n;
      break;
    }
  }
  const active = new Set<string>();
  let cur: MessageNode | undefined = leaf;
  while (cur && !active.has(cur.uuid)) {
    active.add(cur.uuid);
    const next: string | null = cur.parentUuid ?? cur.logicalParentUuid;
    cur = next ? nodes.get(next) : undefined;
  }
  return { activeLeaf: leaf?.uuid ?? null, active };
}

/**
 * Branch points as a user sees them: an active message from which a dead branch holding at least
 * one prompt hangs off. (Parallel tool calls also give a message two children; those hold no
 * prompt and are not branches.)
 */
function computeBranchPoints(
  order: MessageNode[],
  nodes: Map<string, MessageNode>,
  active: Set<string>,
  prompts: Map<string, PromptNode>,
): Map<string, string[]> {
  const result = new Map<string, string[]>();
  const rootCache = new Map<string, { forkPoint: string; root: string } | null>();
  for (const n of order) {
    if (n.isSidechain || active.has(n.uuid) || !prompts.has(n.uuid)) continue;
    const found = findBranchRoot(n, nodes, active, rootCache);
    if (!found) continue;
    const list = result.get(found.forkPoint) ?? [];
    if (!list.includes(found.root)) list.push(found.root);
    result.set(found.forkPoint, list);
  }
  // Add the live child of each fork point first, so children[0] is the one a resume follows.
  for (const [fork, roots] of result) {
    const live = order.find((m) => (m.parentUuid ?? m.logicalParentUuid) === fork && active.has(m.uuid));
    if (live) result.set(fork, [live.uuid, ...roots]);
  }
  return result;
}

export function findBranchRoot(
  start: MessageNode,
  nodes: Map<string, MessageNode>,
  active: Set<string>,
  cache: Map<string, { forkPoint: string; root: string } | null>,
): { forkPoint: string; root: string } | null {
  const walked: string[] = [];
  let cur: MessageNode | undefined = start;
  let result: { forkPoint: string; root: string } | null = null;
  const seen = new Set<string>();
  while (cur && !seen.has(cur.uuid)) {
    seen.add(cur.uuid);
    const cached = rootCacheGet(cache, cur.uuid);
    if (cached !== undefined) {
      result = cached;
      break;
    }
    walked.push(cur.uuid);
    const parentId: string | null = cur.parentUuid ?? cur.logicalParentUuid;
    if (!parentId) break;
    if (active.has(parentId)) {
      result = { forkPoint: parentId, root: cur.uuid };
      break;
    }
    cur = nodes.get(parentId);
  }
  for (const w of walked) cache.set(w, result);
  return result;
}

function rootCacheGet<T>(cache: Map<string, T>, k: string): T | undefined {
  return cache.has(k) ? cache.get(k) : undefined;
}
