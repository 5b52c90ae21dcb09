/** The engine's view of one Claude Code transcript: compact, offsets instead of raw JSON. */

export type MessageType = 'user' | 'assistant' | 'system' | 'attachment' | 'progress';

export interface MessageNode {
  uuid: string;
  parentUuid: string | null;
  /** compact_boundary lines point at the message before compaction here. */
  logicalParentUuid: string | null;
  type: MessageType;
  subtype: string | null;
  isSidechain: boolean;
  line: number;
  offset: number;
  length: number;
  timestamp: string | null;
  promptId: string | null;
  /** For user lines: how they were classified. */
  userKind: string | null;
}

export interface ToolCall {
  id: string;
  name: string;
  /** File the call names (Write/Edit/Read...), relative or absolute as the agent wrote it. */
  filePath: string | null;
  /** Short human summary of the input (the Bash command, the subagent description...). */
  summary: string;
}

export interface Turn {
  assistantMessages: number;
  toolCalls: ToolCall[];
  filesTouched: string[];
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  model: string | null;
  endTimestamp: string | null;
  durationMs: number | null;
  messageCount: number;
  lastUuid: string | null;
}

export interface PromptNode {
  uuid: string;
  text: string;
  images: number;
  timestamp: string | null;
  line: number;
  offset: number;
  length: number;
  parentUuid: string | null;
  promptId: string | null;
  turn: Turn;
}

export interface CommandNode {
  uuid: string;
  name: string;
  args: string;
  timestamp: string | null;
  line: number;
  offset: number;
  /** The prompt whose turn the command happened in (null before the first prompt). */
  afterPromptUuid: string | null;
  /**
   * Before the first prompt (an `/init` session): the model turns it started, which no prompt's
   * turn holds. Later commands' turns are counted in their prompt's turn.
   */
  tokens?: { input: number; output: number; cacheRead: number; cacheWrite: number; model: string | null };
}

export interface CompactionNode {
  uuid: string;
  logicalParentUuid: string | null;
  timestamp: string | null;
  line: number;
  offset: number;
  trigger: string | null;
  preTokens: number | null;
  afterPromptUuid: string | null;
}

export interface NativeBackup {
  path: string;
  backupFileName: string | null;
  version: number;
  backupTime: string | null;
}

export interface NativeSnapshot {
  promptUuid: string;
  /** Backups as recorded in the snapshot line(s) for this prompt. */
  snapshot: Map<string, NativeBackup>;
  /** First-edit backups recorded as deltas during the prompt (2.1.x). */
  deltas: Map<string, NativeBackup>;
  line: number;
}

export interface SubagentRun {
  agentId: string | null;
  toolUseId: string | null;
  agentType: string | null;
  description: string | null;
  /** Where its messages are: its own file, or inline sidechain lines. */
  transcriptPath: string | null;
  inline: boolean;
  messageCount: number;
  promptUuid: string | null;
}

export interface ParseIssue {
  line: number;
  offset: number;
  reason: string;
}

export interface SessionModel {
  sessionId: string;
  transcriptPath: string;
  cwd: string | null;
  version: string | null;
  gitBranch: string | null;
  title: string;
  titleSource: 'custom' | 'ai' | 'summary' | 'prompt' | 'none';
  size: number;
  endOffset: number;
  lineCount: number;
  hasPartialLine: boolean;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  nodes: Map<string, MessageNode>;
  /** Nodes in file order. */
  order: MessageNode[];
  prompts: PromptNode[];
  commands: CommandNode[];
  compactions: CompactionNode[];
  snapshots: Map<string, NativeSnapshot>;
  subagents: SubagentRun[];
  issues: ParseIssue[];
  /** uuid of the leaf a resume would take. */
  activeLeaf: string | null;
  /** uuids on the live path, continued across compactions. */
  active: Set<string>;
  /** Nodes with more than one child: parent uuid -> child uuids in file order. */
  branchPoints: Map<string, string[]>;
}
