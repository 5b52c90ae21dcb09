import { z } from 'zod';
import { AGENT_IDS } from './agent-ids.js';
import { SessionCountsSchema } from './session-counts.js';

/** The document types every door (CLI --json, IPC, HTTP) speaks. Types derive from the schemas. */

/** Every agent the registry holds (`src/engine/agents/registry.ts` is checked against `agent-ids.ts`). */
export const AgentSchema = z.enum(AGENT_IDS);
export type Agent = z.infer<typeof AgentSchema>;

/** How the window names an agent: it names none itself. */
export const AgentInfoSchema = z.object({ id: AgentSchema, displayName: z.string(), badge: z.string(), hooks: z.boolean().default(false), /** It keeps its own record of the code (restore reads it). */ code: z.boolean().default(false), /** Its timeline marks which prompts that record covers. */ codeMarks: z.boolean().default(false) });
export type AgentInfo = z.infer<typeof AgentInfoSchema>;

/**
 * A running agent has this session open (its own marker checked for liveness, else its process in
 * the session's folder: `exact` false). Busy: mid-turn; unknown: the agent does not say.
 */
export const OpenSessionSchema = z.object({
  agent: AgentSchema,
  pid: z.number().int(),
  status: z.enum(['idle', 'busy', 'unknown']),
  /** When the agent opened it (its marker's time), if known. */
  since: z.string().nullable(),
  /** The marker names this session; false: only an agent process working in its folder (the session there it last wrote since it started). */
  exact: z.boolean(),
});
export type OpenSession = z.infer<typeof OpenSessionSchema>;

export const SessionSummarySchema = z.object({
  id: z.string(),
  agent: AgentSchema,
  title: z.string(),
  cwd: z.string().nullable(),
  /** The agent's folder that holds the transcript. */
  projectDir: z.string(),
  transcriptPath: z.string(),
  /** Human prompts in the file (all branches); null when not counted yet (large file, cold cache). */
  promptCount: z.number().int().nullable(),
  /** Of those, the prompts on the path the agent would resume (the rest are on abandoned branches); null: not counted. */
  livePromptCount: z.number().int().nullable().optional(),
  firstPrompt: z.string().nullable(),
  lastPrompt: z.string().nullable(),
  createdAt: z.string().nullable(),
  lastActivity: z.string(),
  sizeBytes: z.number().int(),
  version: z.string().nullable(),
  /** Written to in the last few seconds: the agent is probably running. */
  live: z.boolean(),
  /** When Rewind made this session as a fork: the session it came from. */
  forkOf: z.string().nullable().default(null),
  /** Live / abandoned prompts and branch points (engine/session-counts), when the session was parsed. */
  counts: SessionCountsSchema.optional(),
  /** A fork made from the window: the number of the prompt it was cut before (its label says "fork at #n"). */
  forkAt: z.number().int().positive().nullable().optional(),
  /** The remote host it lives on (`remote add`); absent on this machine. Its paths are remote refs. */
  host: z.string().nullable().optional(),
  /** A running agent has it open (never rewritten in place then); absent or null: none. */
  open: OpenSessionSchema.nullable().optional(),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export const ToolCallSchema = z.object({
  name: z.string(),
  summary: z.string(),
  filePath: z.string().nullable(),
});

export const TurnSchema = z.object({
  assistantMessages: z.number().int(),
  toolCalls: z.array(ToolCallSchema),
  filesTouched: z.array(z.string()),
  /** Every input token the model read, cached or not (cache reads and writes included). */
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** The part of inputTokens read from the prompt cache, and the part written to it. */
  cacheReadTokens: z.number().int().optional(),
  cacheWriteTokens: z.number().int().optional(),
  /** The model that answered (the last one, if it changed within the turn). */
  model: z.string().nullable().optional(),
  durationMs: z.number().nullable(),
  messageCount: z.number().int(),
});
export type TurnSummary = z.infer<typeof TurnSchema>;

export const NativeCheckpointSchema = z.object({
  /** Files Claude's own rewind would put back for this prompt (null backup = the file did not exist). */
  files: z.array(
    z.object({ path: z.string(), backupFileName: z.string().nullable(), version: z.number().int(), editedInTurn: z.boolean() }),
  ),
});

export const SubagentRunSchema = z.object({
  agentId: z.string().nullable(),
  toolUseId: z.string().nullable(),
  agentType: z.string().nullable(),
  description: z.string().nullable(),
  transcriptPath: z.string().nullable(),
  inline: z.boolean(),
  messageCount: z.number().int(),
  promptUuid: z.string().nullable(),
});

export const TimelinePromptSchema = z.object({
  uuid: z.string(),
  /** 1-based position among all prompts in file order. */
  index: z.number().int(),
  /** 1-based position on the live path; null on a dead branch. */
  number: z.number().int().nullable(),
  text: z.string(),
  images: z.number().int(),
  timestamp: z.string().nullable(),
  byteOffset: z.number().int(),
  byteLength: z.number().int(),
  line: z.number().int(),
  active: z.boolean(),
  parentUuid: z.string().nullable(),
  /** The prompt this one follows in the conversation tree (null: the first of its conversation;
   * absent: the agent's reader does not say, and the previous prompt of its lane is taken). */
  parentPrompt: z.string().nullable().optional(),
  promptId: z.string().nullable(),
  /** 0 = the live path; dead branches get 1, 2, ... in the order they were abandoned. */
  lane: z.number().int(),
  /** For a dead prompt: the live message its branch hangs off. */
  forkPoint: z.string().nullable(),
  turn: TurnSchema,
  nativeCheckpoint: NativeCheckpointSchema.nullable(),
  /** Rewind's own checkpoint taken right before this prompt (filled in by the app's service). */
  /** `later`: taken long after the prompt's own time (shared/checkpoint-time): the project as it was then, not before the prompt. */
  /** `pending`: the project's first checkpoint, still being read in the background (`rewind-app checkpoints` says "first checkpoint in progress"): when it started and how many prompts' checkpoints wait behind it. */
  checkpoint: z.object({ id: z.string(), scan: z.enum(['full', 'touched']), time: z.string(), later: z.boolean().optional(), pending: z.object({ started: z.string(), queued: z.number().int() }).optional() }).nullable(),
});
export type TimelinePrompt = z.infer<typeof TimelinePromptSchema>;

export const TokensSchema = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
});

/** Dollars and tokens for a set of turns. usd is null when no turn's model has a price. */
export const CostSchema = z.object({
  tokens: TokensSchema,
  usd: z.number().nullable(),
  /** Some turns (counted in tokens) had no price: usd covers the others only. */
  partial: z.boolean(),
});
export type Cost = z.infer<typeof CostSchema>;

export const CostReportSchema = z.object({
  currency: z.literal('USD'),
  pricesAsOf: z.string(),
  pricesSource: z.string(),
  session: CostSchema,
  live: CostSchema,
  /** Each abandoned branch: where it starts, how many prompts it holds, what it cost. */
  deadBranches: z.array(z.object({ root: z.string(), lane: z.number().int(), prompts: z.number().int(), cost: CostSchema })),
  /** Per prompt: its own turn, and its whole subtree (it and every prompt that follows from it). */
  prompts: z.record(z.string(), z.object({ turn: CostSchema, subtree: CostSchema })),
  /** Models seen that no price covers (shown with tokens only). */
  unpricedModels: z.array(z.string()),
});
export type CostReport = z.infer<typeof CostReportSchema>;

export const TimelineSchema = z.object({
  session: z.object({
    /** A running agent has it open (the window's timeline header says so). */
    open: OpenSessionSchema.nullable().optional(),
    id: z.string(),
    agent: AgentSchema,
    title: z.string(),
    cwd: z.string().nullable(),
    transcriptPath: z.string(),
    version: z.string().nullable(),
    gitBranch: z.string().nullable(),
    sizeBytes: z.number().int(),
    firstTimestamp: z.string().nullable(),
    lastTimestamp: z.string().nullable(),
    /** The model the agent last used, where its files say (Droid, Qwen, Gemini). */
    model: z.string().nullable().optional(),
    /** Tokens the whole session used, where the agent keeps a total (Droid's settings file). */
    tokens: z.object({ input: z.number(), output: z.number() }).nullable().optional(),
    /** Why this session cannot be rewound (its agent reads only, an unknown format); null: it can. */
    readOnly: z.string().nullable().default(null),
  }),
  prompts: z.array(TimelinePromptSchema),
  commands: z.array(
    z.object({
      uuid: z.string(),
      name: z.string(),
      args: z.string(),
      timestamp: z.string().nullable(),
      byteOffset: z.number().int(),
      active: z.boolean(),
      afterPromptUuid: z.string().nullable(),
      /** The model turns of a command before the first prompt (`/init`), which no prompt's turn counts. */
      tokens: z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number(), model: z.string().nullable() }).optional(),
    }),
  ),
  compactions: z.array(
    z.object({
      uuid: z.string(),
      logicalParentUuid: z.string().nullable(),
      timestamp: z.string().nullable(),
      byteOffset: z.number().int(),
      trigger: z.string().nullable(),
      preTokens: z.number().nullable(),
      active: z.boolean(),
      afterPromptUuid: z.string().nullable(),
    }),
  ),
  branches: z.array(
    z.object({
      forkPoint: z.string(),
      /** The prompt whose turn the fork point belongs to (null: before the first prompt). */
      afterPromptUuid: z.string().nullable(),
      liveChild: z.string().nullable(),
      deadRoots: z.array(z.string()),
    }),
  ),
  subagents: z.array(SubagentRunSchema),
  activeLeaf: z.string().nullable(),
  stats: z.object({
    lines: z.number().int(),
    messages: z.number().int(),
    prompts: z.number().int(),
    activePrompts: z.number().int(),
    deadPrompts: z.number().int(),
  }),
  issues: z.array(z.object({ line: z.number().int(), offset: z.number().int(), reason: z.string() })),
  /** Filled in at the edge that knows the user's prices (the CLI, the service). */
  cost: CostReportSchema.optional(),
});
export type Timeline = z.infer<typeof TimelineSchema>;
