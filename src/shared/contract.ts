import { z } from 'zod';
import type { OperationName } from './operations.js';
import { AgentInfoSchema, AgentSchema, CostSchema, SessionSummarySchema, TimelinePromptSchema, TimelineSchema } from './session-schema.js';

/** Every request, response and event that crosses a process boundary; validated where it arrives. */

const path = z.string().min(1).max(4096);
/** A session: its id, an id prefix, or its transcript path. */
const sessionRef = z.string().min(1).max(4096).describe('A session: its id, an id prefix, or its transcript path');
const uuid = z.string().min(1).max(200);

const StatedPromptSchema = z.object({ uuid: z.string(), text: z.string(), images: z.number().int(), timestamp: z.string().nullable(), number: z.number().int().nullable(), live: z.boolean() });

/** The engine's rewind statement: what the result keeps, leaves out and hands back (see wording.statementLines). */
export const StatementSchema = z.object({
  mode: z.enum(['fork', 'in-place']),
  keptEnd: StatedPromptSchema.nullable(),
  droppedLive: z.array(StatedPromptSchema),
  droppedBranch: z.array(StatedPromptSchema),
  droppedOther: z.array(StatedPromptSchema).default([]),
  keptAbandoned: z.number().int().default(0),
  droppedLiveKept: z.number().int().optional(),
  handedBack: z.array(StatedPromptSchema),
  targetLive: z.boolean(),
  leftOutMessages: z.number().int(),
});
export type Statement = z.infer<typeof StatementSchema>;

export const ChatPlanSchema = z.object({
  transcript: z.string(),
  sessionId: z.string(),
  mode: z.enum(['fork', 'in-place']),
  boundaryOffset: z.number().int(),
  resultSize: z.number().int(),
  droppedMessages: z.number().int(),
  prompts: z.array(z.object({ uuid: z.string(), text: z.string(), images: z.number().int(), timestamp: z.string().nullable() })),
  /** Null for an agent whose rewind cannot state it yet: the window then lists the prompts left out. */
  statement: StatementSchema.nullable(),
  /** The transcript's size when planned: a confirm whose transcript changed since is refused (review again). */
  sizeAtPlan: z.number().int().nullable(),
  backupPath: z.string().nullable(),
  /** Things to know before confirming (e.g. the agent may still be writing the transcript). */
  warnings: z.array(z.string()),
});

export const FileChangeSchema = z.object({
  path: z.string(),
  action: z.enum(['create', 'modify', 'delete', 'unchanged']),
  kind: z.enum(['f', 'l', 'd']),
  conflict: z.string().nullable(),
  binary: z.boolean(),
  sizeBefore: z.number().nullable(),
  sizeAfter: z.number().nullable(),
  patch: z.string().nullable(),
  /** Instead of a patch for a text file too large to diff: "large file: N lines changed". */
  note: z.string().nullable().optional(),
});

export const CodePlanSchema = z.object({
  /** Rewind's checkpoints, or the agent's own store (`agent` names whose). */
  source: z.enum(['rewind', 'agent']),
  agent: z.string().nullable().optional(),
  checkpointId: z.string().nullable(),
  note: z.string(),
  projectRoot: z.string(),
  changes: z.array(FileChangeSchema),
  unchanged: z.number().int(),
  untouched: z.array(z.string()),
  skipped: z.array(z.object({ path: z.string(), size: z.number(), reason: z.string() })),
  conflicts: z.number().int(),
  /** An agent has a session of the project open (a restore is allowed while it is idle): one line saying so. */
  openNote: z.string().nullable().optional(),
});
export type CodePlan = z.infer<typeof CodePlanSchema>;

const TakeSchema = z.enum(['current', 'before', 'markers']);

/** A revert's preview: the files it changes (with diffs), and each conflicted file with both sides. */
export const RevertPlanSchema = z.object({
  promptId: z.string(),
  checkpointId: z.string(),
  afterCheckpointId: z.string().nullable(),
  afterNote: z.string(),
  projectRoot: z.string(),
  changes: z.array(FileChangeSchema),
  /** Each conflicted file: now (`current`), before the prompt (`before`) and as the prompt left it (`after`; absent from an older host), null where absent or binary. */
  conflicts: z.array(z.object({ path: z.string(), reason: z.string(), current: z.string().nullable(), before: z.string().nullable(), after: z.string().nullable().optional(), binary: z.boolean(), canMark: z.boolean(), choice: TakeSchema.nullable() })),
  unresolved: z.array(z.string()),
});
export type RevertPlan = z.infer<typeof RevertPlanSchema>;

export const HistoryEntrySchema = z.object({
  id: z.string(),
  kind: z.enum(['fork', 'in-place', 'restore', 'revert', 'undo', 'redo']),
  time: z.string(),
  group: z.string().nullable(),
  agent: z.string().nullable(),
  sessionId: z.string().nullable(),
  transcript: z.string().nullable(),
  prompt: z.string().nullable(),
  files: z.array(z.string()),
  dropped: z.string().nullable(),
  refers: z.string().nullable(),
  undone: z.boolean(),
  undoable: z.boolean(),
  why: z.string().nullable(),
});
export type HistoryEntryDoc = z.infer<typeof HistoryEntrySchema>;

const RevertRequest = z
  .object({
    session: sessionRef,
    promptUuid: uuid,
    /** Per conflicted file: keep it, take it as before the prompt, or write markers. */
    take: z.record(z.string().max(4096), TakeSchema).default({}),
    force: z.boolean().default(false),
  })
  .strict();

const RewindRequest = z
  .object({
    session: sessionRef,
    promptUuid: uuid,
    mode: z.enum(['fork', 'in-place']),
    withCode: z.boolean().default(false),
    force: z.boolean().default(false),
    /** The size the preview was made at: the confirm is refused when the transcript changed since. */
    expectSize: z.number().int().nonnegative().optional(),
  })
  .strict();

export const CheckpointSummarySchema = z.object({
  id: z.string(),
  time: z.string(),
  label: z.string().nullable(),
  trigger: z.string(),
  scan: z.enum(['full', 'touched']),
  transcript: z.object({ transcript_path: z.string(), session_id: z.string().nullable(), prompt_id: z.string().nullable(), prompt_uuid: z.string().nullable(), byte_offset_end: z.number() }).nullable(),
  files: z.number(),
  bytes: z.number(),
  changed: z.object({ added: z.array(z.string()), modified: z.array(z.string()), deleted: z.array(z.string()) }),
  /** Files the checkpoint passed over (too large, unreadable, vanished, a FIFO...), named. */
  skippedPaths: z.array(z.object({ path: z.string(), reason: z.string() })).optional(),
});

/** An image in a prompt or a tool result; `data` (base64) is null past the size the pane shows. */
export const TurnImageSchema = z.object({ mediaType: z.string(), data: z.string().nullable(), bytes: z.number().int() });

/** A tool call as the details pane draws it: a file view, a diff, a terminal block, a search. */
export const ToolViewSchema = z.object({
  name: z.string(),
  view: z.enum(['write', 'edit', 'bash', 'read', 'search', 'patch', 'other']),
  /** Write/Edit/Read: the file; Grep/Glob: where it looked. */
  path: z.string().nullable(),
  /** Bash: the command; Grep/Glob: the pattern; apply_patch: the patch. */
  command: z.string().nullable(),
  description: z.string().nullable(),
  /** Write: what it wrote. */
  content: z.string().nullable(),
  /** Edit/MultiEdit: each replacement. */
  edits: z.array(z.object({ oldText: z.string(), newText: z.string() })),
  /** Any other tool: its input as indented JSON. */
  input: z.string().nullable(),
  /** Its result, paired by call id. */
  result: z.object({ text: z.string(), isError: z.boolean() }).nullable(),
});
export type ToolView = z.infer<typeof ToolViewSchema>;

const TurnItemBaseSchema = z.object({
  kind: z.enum(['prompt', 'text', 'thinking', 'tool-call', 'tool-result', 'subagent', 'command', 'image', 'other']),
  title: z.string(),
  body: z.string(),
  isError: z.boolean().default(false),
  tool: ToolViewSchema.nullable().default(null),
  images: z.array(TurnImageSchema).default([]),
});

/** `notice`: what was wrong with the prefs file (kept aside, or left as it is), to say once. */
const UiPrefs = z.object({ names: z.record(z.string(), z.string()), hiddenHooksNotice: z.array(z.string()), notice: z.string().optional() });

export const TurnItemSchema = TurnItemBaseSchema.extend({
  /** A subagent's run, from its own transcript: what it was asked and what it did, one level deep. */
  subagent: z
    .object({
      agentType: z.string().nullable(),
      description: z.string().nullable(),
      model: z.string().nullable(),
      messageCount: z.number().int(),
      items: z.array(TurnItemBaseSchema),
      truncated: z.boolean(),
      /** Why its steps are not shown (inline sidechain, unreadable file); null when they are. */
      note: z.string().nullable(),
    })
    .nullable()
    .default(null),
});
export type TurnItem = z.output<typeof TurnItemSchema>;
export type TurnItemBase = z.output<typeof TurnItemBaseSchema>;

const HooksScopeSchema = z.object({ scope: z.enum(['user', 'project', 'local']), file: z.string(), events: z.array(z.string()), command: z.string().nullable() });
/** One agent's hooks as the window's notice shows them: only agents with sessions in the project. */
/** A hooks install or removal: the file, what changed, and its text before and after (null: no file), for the window's preview. */
const HooksChangeSchema = z.object({
  file: z.string(),
  changed: z.boolean(),
  lines: z.array(z.string()),
  nextStep: z.string().nullable().default(null),
  before: z.string().nullable().optional(),
  after: z.string().nullable().optional(),
  backup: z.string().nullable().optional(),
});
const AgentHooksSchema = z.object({ agent: z.string(), displayName: z.string(), installed: z.boolean(), file: z.string(), nextStep: z.string().nullable() });

const PriceSchema = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });
const PromptBriefSchema = z.object({ uuid: z.string(), number: z.number().int().nullable(), text: z.string(), active: z.boolean() });
const CompareSideSchema = z.object({
  sessionId: z.string(),
  picked: PromptBriefSchema,
  end: PromptBriefSchema.nullable(),
  prompts: z.array(PromptBriefSchema),
  cost: CostSchema,
});
const TreeSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('checkpoint'), id: z.string(), time: z.string() }),
  z.object({ kind: z.literal('disk') }),
  z.object({ kind: z.literal('agent-history'), before: z.string(), files: z.number().int() }),
  z.object({ kind: z.literal('unknown'), reason: z.string() }),
]);
export const CompareResultSchema = z.object({
  ancestor: PromptBriefSchema.nullable(),
  a: CompareSideSchema,
  b: CompareSideSchema,
  code: z.union([
    z.object({
      a: TreeSourceSchema,
      b: TreeSourceSchema,
      files: z.array(z.object({ path: z.string(), status: z.enum(['A', 'M', 'D']), added: z.number().int(), removed: z.number().int(), binary: z.boolean(), patch: z.string().nullable() })),
      added: z.number().int(),
      removed: z.number().int(),
    }),
    z.object({ unavailable: z.string() }),
  ]),
});
export type CompareResult = z.infer<typeof CompareResultSchema>;

/** A remote host as the sidebar shows it: connected, connecting, or lost with ssh's one line. */
export const RemoteStatusSchema = z.object({
  name: z.string(),
  target: z.string(),
  state: z.enum(['connecting', 'connected', 'lost']),
  message: z.string().nullable(),
  version: z.string().nullable(),
});
export type RemoteStatus = z.infer<typeof RemoteStatusSchema>;

export const CONTRACT = {
  listSessions: {
    request: z.object({ project: path.optional() }).strict(),
    response: z.object({
      root: z.string(),
      /** `root`/projects exists. */
      exists: z.boolean(),
      /** The Claude folder itself: missing, there with nothing in it, or there with something. */
      rootState: z.enum(['missing', 'empty', 'present']).default('present'),
      sessions: z.array(SessionSummarySchema),
      agents: z.array(AgentInfoSchema).default([]),
    }),
  },
  getTimeline: {
    request: z.object({ session: sessionRef }).strict(),
    response: TimelineSchema,
  },
  getTurn: {
    request: z.object({ session: sessionRef, promptUuid: uuid }).strict(),
    response: z.object({
      promptUuid: z.string(),
      text: z.string(),
      items: z.array(TurnItemSchema),
      truncated: z.boolean(),
      /** The model that answered (the last one named in the turn). */
      model: z.string().nullable().default(null),
      promptImages: z.array(TurnImageSchema).default([]),
    }),
  },
  searchPrompts: {
    request: z
      .object({
        query: z.string().min(1).max(200).describe('Words or "a phrase" (case and accents ignored)'),
        limit: z.number().int().positive().max(10_000).optional(),
        /** Only this agent's sessions. */
        agent: AgentSchema.optional(),
        /** Only sessions that ran in this folder (absolute). */
        project: path.optional(),
      })
      .strict(),
    response: z.object({
      /** Every matching prompt (at most 5,000), newest sessions first, with a one-line snippet (null past the first thousand) and the matched ranges in it ([start, end), UTF-16). */
      matches: z.array(z.object({ transcriptPath: z.string(), sessionId: z.string(), promptUuid: z.string(), snippet: z.string().nullable(), highlights: z.array(z.tuple([z.number().int(), z.number().int()])).default([]) })),
      /** Every matching session, newest first, with all its matching prompts. */
      sessions: z.array(z.object({ transcriptPath: z.string(), sessionId: z.string(), count: z.number().int(), promptUuids: z.array(z.string()) })).default([]),
      totalHits: z.number().int().default(0),
      /** Session files not searched and why (not indexed yet, unreadable): empty means complete. */
      notSearched: z.array(z.object({ path: z.string(), reason: z.string() })).default([]),
      truncated: z.boolean(),
    }),
  },
  previewRewind: {
    request: RewindRequest,
    response: z.object({ chat: ChatPlanSchema, code: CodePlanSchema.nullable(), codeNote: z.string().nullable(), summary: z.string() }),
  },
  applyRewind: {
    request: RewindRequest,
    response: z.object({
      chat: ChatPlanSchema,
      forkSessionId: z.string().nullable(),
      forkPath: z.string().nullable(),
      backupPath: z.string().nullable(),
      code: z.object({ written: z.number(), deleted: z.number(), checkpointId: z.string().nullable() }).nullable(),
      projectRoot: z.string().nullable(),
      summary: z.string(),
      /** How to continue the fork (or the rewritten session) in the agent's own CLI. */
      resumeCommand: z.string().nullable().default(null),
      /** A fork of a session an agent has open: how to continue on the fork in that agent (Claude Code: type `/resume <id>` in it). */
      handBack: z.string().nullable().default(null),
    }),
  },
  listCheckpoints: {
    request: z.object({ project: path }).strict(),
    response: z.object({ projectRoot: z.string(), checkpoints: z.array(CheckpointSummarySchema) }),
  },
  takeCheckpoint: {
    request: z.object({ project: path, label: z.string().max(200).optional() }).strict(),
    response: z.object({ id: z.string(), files: z.number(), hashed: z.number(), skipped: z.number() }),
  },
  previewRestore: {
    request: z.object({ project: path, ref: z.string().min(1).max(200), source: z.enum(['rewind', 'agent']).optional(), session: sessionRef.optional() }).strict(),
    response: CodePlanSchema,
  },
  applyRestore: {
    request: z.object({ project: path, ref: z.string().min(1).max(200), source: z.enum(['rewind', 'agent']).optional(), session: sessionRef.optional(), force: z.boolean().default(false) }).strict(),
    response: z.object({ written: z.number(), deleted: z.number(), preRestoreId: z.string(), summary: z.string() }),
  },
  undo: {
    /** `id`: a history entry (undone even when it is not the newest); none: the newest action. */
    request: z.object({ project: path, id: z.string().min(1).max(200).optional(), dryRun: z.boolean().default(false), force: z.boolean().default(false) }).strict(),
    response: z.object({ kind: z.string(), summary: z.string(), dryRun: z.boolean(), keptAt: z.string().nullable(), parts: z.number().int().default(1) }),
  },
  revertPreview: {
    request: RevertRequest,
    response: RevertPlanSchema,
  },
  revert: {
    request: RevertRequest,
    response: z.object({ written: z.number(), deleted: z.number(), journalId: z.string().nullable(), summary: z.string(), projectRoot: z.string() }),
  },
  redo: {
    request: z.object({ project: path, dryRun: z.boolean().default(false), force: z.boolean().default(false) }).strict(),
    response: z.object({ kind: z.string(), summary: z.string(), dryRun: z.boolean(), parts: z.number().int() }),
  },
  history: {
    request: z.object({ project: path }).strict(),
    response: z.object({ projectRoot: z.string(), entries: z.array(HistoryEntrySchema) }),
  },
  hooksStatus: {
    request: z.object({ project: path }).strict(),
    // projectExists: false for a session of a folder not on this machine (nothing to install hooks into).
    response: z.object({ projectRoot: z.string(), projectExists: z.boolean().default(true), scopes: z.array(HooksScopeSchema), command: z.string(), agents: z.array(AgentHooksSchema).default([]) }),
  },
  installHooks: {
    request: z
      .object({ project: path, agent: z.string().min(1).max(40).optional(), scope: z.enum(['user', 'project', 'local']).optional(), dryRun: z.boolean().default(false) })
      .strict(),
    response: HooksChangeSchema,
  },
  /** Removes Rewind's hooks for one agent (what `rewind-app hooks uninstall --agent <id>` does); dryRun: the change only. */
  uninstallHooks: {
    request: z.object({ project: path, agent: z.string().min(1).max(40), scope: z.enum(['user', 'project', 'local']).optional(), dryRun: z.boolean().default(false) }).strict(),
    response: HooksChangeSchema,
  },
  getSettings: {
    request: z.object({}).strict(),
    response: z.object({ claudeRoot: z.string(), demo: z.boolean(), version: z.string() }),
  },
  setSettings: {
    request: z.object({ claudeRoot: path.optional(), demo: z.boolean().optional() }).strict(),
    response: z.object({ claudeRoot: z.string(), demo: z.boolean(), version: z.string() }),
  },
  getPrefs: {
    request: z.object({}).strict(),
    response: UiPrefs,
  },
  /** A name shown by Rewind for a session (kept in Rewind's prefs, not in the transcript); null or empty clears it. */
  renameSession: {
    request: z.object({ sessionId: z.string().min(1).max(200), name: z.string().max(500).nullable() }).strict(),
    response: UiPrefs,
  },
  dismissHooksNotice: {
    request: z.object({ project: path }).strict(),
    response: UiPrefs,
  },
  getPrices: {
    request: z.object({}).strict(),
    response: z.object({ overrides: z.record(z.string(), PriceSchema), asOf: z.string(), source: z.string(), notice: z.string().nullable() }),
  },
  comparePrompts: {
    request: z.object({ a: z.object({ session: sessionRef, promptUuid: uuid }).strict(), b: z.object({ session: sessionRef, promptUuid: uuid }).strict() }).strict(),
    response: CompareResultSchema,
  },
  exportSession: {
    /** `job`: the caller's id for this export: its progress comes as `operationProgress` events under `export-<job>`, and `cancelExport` stops it. */
    request: z.object({ session: sessionRef, branch: uuid.optional(), format: z.enum(['md', 'html']), redact: z.boolean().default(true), job: z.string().min(1).max(100).optional() }).strict(),
    response: z.object({ filename: z.string(), mime: z.string(), content: z.string(), prompts: z.number().int(), redacted: z.record(z.string(), z.number()) }),
  },
  /** Stops a running export (the one started with this `job`): it answers CANCELLED and nothing is returned. `cancelled`: false when it had already finished. */
  cancelExport: {
    request: z.object({ job: z.string().min(1).max(100) }).strict(),
    response: z.object({ cancelled: z.boolean() }),
  },
  /** The hosts added with `remote add` (or here), each with its connection's state. */
  listRemotes: {
    request: z.object({}).strict(),
    response: z.object({ hosts: z.array(RemoteStatusSchema) }),
  },
  addRemote: {
    request: z.object({ target: z.string().min(1).max(512), name: z.string().min(1).max(63).optional() }).strict(),
    response: z.object({ hosts: z.array(RemoteStatusSchema) }),
  },
  removeRemote: {
    request: z.object({ name: z.string().min(1).max(63) }).strict(),
    response: z.object({ hosts: z.array(RemoteStatusSchema) }),
  },
  reconnectRemote: {
    request: z.object({ name: z.string().min(1).max(63) }).strict(),
    response: z.object({ hosts: z.array(RemoteStatusSchema) }),
  },
} as const satisfies Record<OperationName, { request: z.ZodType; response: z.ZodType }>;

export type RequestOf<K extends OperationName> = z.input<(typeof CONTRACT)[K]['request']>;
export type ParsedRequestOf<K extends OperationName> = z.output<(typeof CONTRACT)[K]['request']>;
export type ResponseOf<K extends OperationName> = z.output<(typeof CONTRACT)[K]['response']>;

export const ErrorPayloadSchema = z.object({ code: z.string(), message: z.string() });
export type ErrorPayload = z.infer<typeof ErrorPayloadSchema>;

/** What every door returns: a value, or an error with a stable code (never a stack trace). */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorPayload };

export const EventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('remoteStatus'), host: RemoteStatusSchema }),
  z.object({ type: z.literal('sessionsChanged') }),
  /** One session grew or changed: its new list entry (the list patches that row). */
  z.object({ type: z.literal('sessionUpdated'), session: SessionSummarySchema }),
  z.object({
    type: z.literal('timelineChanged'),
    session: z.string(),
    /** 'append': only `upserts` changed (new or grown prompts); 'reread': take `timeline` whole. */
    kind: z.enum(['append', 'reread']),
    upserts: z.array(TimelinePromptSchema),
    timeline: TimelineSchema.nullable(),
    stats: TimelineSchema.shape.stats,
  }),
  z.object({ type: z.literal('operationProgress'), id: z.string(), message: z.string(), fraction: z.number().nullable() }),
  z.object({ type: z.literal('operationFinished'), id: z.string(), operation: z.string(), ok: z.boolean(), summary: z.string(), output: z.string().optional() }),
]);
export type RewindEvent = z.infer<typeof EventSchema>;

/** The API the renderer sees: one named method per operation, plus the event stream. */
export type RewindApi = { [K in OperationName]: (request: RequestOf<K>) => Promise<Result<ResponseOf<K>>> } & {
  onEvent(listener: (e: RewindEvent) => void): () => void;
};
