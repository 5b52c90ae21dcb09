import type { Agent, OpenSession, SessionSummary, Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import type { PromptLines } from '../prompts/search.js';
import type { ResponseOf, TurnItem } from '../../shared/contract.js';
import type { AgentHooks } from '../hooks/agent-hooks.js';
import type { ProcessTable } from '../io/process-list.js';

/**
 * The one seam every coding agent sits behind. An agent lives in `src/engine/agents/<id>/` and is
 * one line of `registry.ts`; the service, the CLI, the doors and the renderer reach it only through
 * the registry. Members marked optional are capabilities: an agent without `rewind` is shown, read
 * only, and every door says why.
 *
 * Everything here is plain data in and out (no classes cross it), so it can run on the engine's
 * worker thread. Paths are absolute. An adapter module must be cheap to import: load parsers and
 * writers lazily inside the methods (the CLI's `back` hot path imports the registry).
 */
export interface AgentAdapter {
  /** Stable id, used in documents (`SessionSummary.agent`) and journals. */
  readonly id: Agent;
  /** What the window and the CLI call it: "Claude Code", "Codex CLI". */
  readonly displayName: string;
  /** Short tag next to a session in the list: "Claude", "Codex". */
  readonly badge: string;

  // ---- discover ----------------------------------------------------------------------------
  /** Where this agent keeps its sessions on this machine: an override (a CLI flag), else env, else the default. */
  root(env: NodeJS.ProcessEnv, override?: string | null): string;
  /** The root this agent's own stores are read from for a session file (absent: `root`). */
  storeRootOf?(path: string, root: string): string;
  /** What the watcher follows under `root`: folders (and how many levels down) holding session files. */
  watch(root: string): WatchSpec;
  /** Every session file under `root`, newest first (a missing root gives none). */
  sessionFiles(root: string): Promise<SessionFile[]>;
  /**
   * The same files, synchronously, for the search index (which runs on the CLI or a worker thread,
   * never the UI's): thousands of stats in a few milliseconds. Absent: the index awaits `sessionFiles`.
   */
  sessionFilesSync?(root: string): SessionFile[];
  /**
   * Sessions under `root` recorded in the project folder `from` are filed as run in `to` (the
   * demo's copies, whose recorded paths were rewritten): for agents that file sessions by project.
   */
  relocate?(root: string, from: string, to: string): Promise<void>;
  /** Does this file belong to this agent? Decided from its path and first line (null: unreadable). */
  owns(path: string, firstLine: Buffer | null): boolean;
  /** A session by id or id prefix (paths are resolved by the registry); null when none matches. */
  find(ref: string, root: string): Promise<string | null>;
  /** The newest session that ran in `cwd`, else null. */
  newestFor(cwd: string, root: string): Promise<string | null>;

  // ---- read --------------------------------------------------------------------------------
  /** Sessions as the list and the metadata index show them, newest first; cheap (heads, cached counts). */
  summarize(root: string, opts?: SummarizeOptions): Promise<SessionSummary[]>;
  /**
   * One session's list entry (title, cwd, first and last prompt; counts left null), for the metadata
   * index, which asks only about files that changed. Absent: the index takes it from `summarize`.
   * `ends`: the file's first and last bytes as the index just read them (optional: without them,
   * the adapter reads the file itself).
   */
  summarizeFile?(file: SessionFile, now?: number, ends?: FileEnds): Promise<SessionSummary | null>;
  /**
   * For agents whose sessions share one store file (no file per session, no prompt lines to scan):
   * every session's list entry, counts and prompt texts, read in one pass, keyed by its `sessionFiles`
   * path. The index asks only when a listed session's size or time moved (the store's bytes and the
   * session's last update), once per refresh.
   */
  storeIndex?(root: string, now?: number): Promise<Map<string, StoreIndexEntry>>;
  /** The whole session in the shared model: prompts, turns, branches, compactions, subagents. */
  timeline(path: string): Promise<Timeline>;
  /** One prompt's turn, item by item, for the detail pane. */
  turn(path: string, promptUuid: string): Promise<TurnDetail>;
  /**
   * Following a growing session: the service keeps it parsed and reads only what was appended
   * (append-only transcripts of any size; today Claude's). Without it, the service reads `timeline`
   * again on each change.
   */
  readonly follow?: SessionFollow;
  /** How this agent's lines name a prompt: search reads only lines carrying `marker`. */
  readonly promptLines: PromptLines;

  // ---- rewind ------------------------------------------------------------------------------
  /**
   * Plans (`dryRun`) and writes a fork or an in-place rewrite before a prompt. Absent: sessions of
   * this agent are read only. Must validate before writing, back up and journal what it replaces,
   * write atomically and refuse while the agent holds the session (unless `force`).
   */
  rewind?(req: RewindRequest): Promise<RewindOutcome>;
  /**
   * Undo of a rewind whose session is not a file Rewind wrote (a session in an agent's database,
   * `<store>#<id>`, which the agent itself changed): the journal hands its record over. Absent: the
   * journal undoes the record's files itself.
   */
  undoRewind?(r: StoreUndoRecord, opts: { dryRun?: boolean; force?: boolean }): Promise<{ summary: string; keptAt: string | null }>;
  /** Null when this file can be rewound; else the one-line reason (an unknown future format...). */
  readOnlyReason?(path: string): Promise<string | null>;
  /** How to continue a session in the agent's own CLI: `claude --resume <id>`. */
  resumeCommand(sessionId: string): string;
  /** `rewind-app hooks install` wires Rewind's checkpoints into this agent (the window offers it). */
  readonly checkpointHooks?: boolean;
  /** The agent's hooks: its config files, the events Rewind adds, what a payload means (`rewind-app hook --agent <id>`). */
  readonly hooks?: AgentHooks;
  /**
   * The agent's own record of the project's files before each prompt (Claude's `file-history/`,
   * Droid's snapshots, Qwen's file-history, Gemini's checkpoints): restore, `back --both`, the
   * window's code restore and compare read it besides Rewind's checkpoints (`--source <id>`).
   */
  readonly codeHistory?: CodeHistory;
  /**
   * Sessions a running agent has open under `root` (FORMATS.md §2d): the agent's own markers
   * checked for liveness (a live pid with the recorded start time, a lock another process holds),
   * else its processes and their working folders (`sessionId` null: which session is not known).
   * Stale markers (pid gone or reused, another pid namespace, a lock nobody holds) are left out.
   * `look`: the one look at the machine every agent of the same call shares (the process table).
   */
  openSessions?(root: string, look?: OpenLook): Promise<OpenMarker[]>;
  /** Folders under `root` where this agent's open-session markers come and go (the window watches them); absent: re-checked on a timer. */
  openMarkerDirs?(root: string): string[];
  /** The id this agent's markers name the session file by (absent: the file name without `.jsonl`). */
  sessionIdOf?(path: string): Promise<string | null>;
  /**
   * An in-place rewind (its preview too) applied by the running agent that has the session open,
   * through the agent's own supported way (Codex: `thread/revert` on its app-server daemon), so the
   * open agent goes on without the dropped prompts. Null when that agent cannot be reached: the
   * rewrite is then refused as for any open session. Absent: always refused while open.
   */
  rewindThroughAgent?(req: RewindRequest, open: OpenSession): Promise<RewindOutcome | null>;
  /** After Rewind put a transcript back in place (undo, redo): what the agent caches of it is dropped (Codex: its turn projection); warnings. */
  rewritten?(path: string): Promise<string[]>;
  /** What to type in the agent's open TUI to switch it to a session (Claude Code: `/resume <id>`); absent: quit and resume. */
  resumeInOpen?(sessionId: string): string;
  /** Is the agent writing to (or holding) this session right now? */
  isLive(path: string, opts?: { now?: number; windowMs?: number }): Promise<boolean>;
  /**
   * Where and how this agent registers an MCP server (`rewind-app mcp install --agent <id>`);
   * loaded on demand (its JSON/TOML editors stay off the CLI's hot path).
   */
  mcpConfig?(): Promise<McpConfig>;
}

/** What every agent's `openSessions` of one call (a list, one check) shares: the processes, read once. */
export interface OpenLook {
  processes: ProcessTable;
}

/** One open session as an agent marks it (`openSessions`). */
export interface OpenMarker {
  /** The session the marker names; null: the agent's process is known, not its session. */
  sessionId: string | null;
  /** The agent process's working folder, when known. */
  cwd: string | null;
  pid: number;
  status: OpenSession['status'];
  /** ISO time the agent opened it, when the marker says; for a process without a marker, when it started. */
  since: string | null;
}

/**
 * The capability behind `follow`. The first read is the long part and runs on the engine worker
 * (`parse`: plain data out); `revive` turns it back into a session the main thread extends with
 * each append. The service keeps what is generic: the memory budget, one refresh at a time per
 * file, the guard that tells an append from a rewrite, and the events.
 */
export interface SessionFollow {
  /** The whole file read (on the worker): structured-cloneable. */
  parse(path: string): Promise<FollowParsed>;
  /** The parsed data as a followed session; throws a one-line RewindError when it is not this agent's session. */
  revive(parsed: FollowParsed, path: string): Promise<FollowedSession>;
}

export interface FollowParsed {
  /** The agent's own parse state (plain data). */
  state: unknown;
  /** End of the last complete line read: where the next read starts. */
  endOffset: number;
  lineCount: number;
  size: number;
  /** A partial last line was left for later. */
  partial: boolean;
}

/** A session kept parsed while it grows. */
export interface FollowedSession {
  readonly timeline: Timeline;
  /** End of the last complete line read, and how many lines that is. */
  readonly endOffset: number;
  readonly lineCount: number;
  /** Reads the complete lines appended since `endOffset`; null when only a partial line came. */
  extend(): Promise<FollowStep | null>;
  /** One prompt's turn, from what is held (no read of the file). */
  turn(promptUuid: string): Promise<TurnDetail>;
}

/** What one append did to a followed session. */
export interface FollowStep {
  /** 'append': only `upserts` changed; 'reread': the timeline is sent whole (a new branch, a compaction...). */
  kind: 'append' | 'reread';
  upserts: TimelinePrompt[];
  /** What it cost (tests and the bench count it): extended from the new lines alone, or rebuilt. */
  work: { kind: 'extend' | 'rebuild'; lines: number; messages: number; prompts: number };
}

/** One stdio MCP server as the agents' configs name it. */
export interface McpServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

export type McpScope = 'user' | 'project';

/**
 * An agent's MCP config file: which file a scope means, and the pure edits of its text that add or
 * remove one server (everything else in the file is kept as it was, comments and order included).
 */
export interface McpConfig {
  /** The file for a scope: the agent's own (user) or the one inside the project. */
  file(scope: McpScope, ctx: { env: NodeJS.ProcessEnv; project: string }): string;
  /** The server registered under `name` in this text (null: none; the file missing is `text` null). */
  read(text: string | null, name: string): McpServerEntry | null;
  /** The text with `name` registered as `entry` (replacing what was there under that name). */
  add(text: string | null, name: string, entry: McpServerEntry): string;
  /**
   * The text without `name` (the same text when it had none; null when nothing else is left in the
   * file, unless `keepEmpty`: then the emptied text, for a file the user had).
   */
  remove(text: string, name: string, keepEmpty?: boolean): string | null;
}

export interface WatchSpec {
  /** Folders to watch (they may not exist yet). */
  dirs: string[];
  /** Levels of folders below each dir that hold session files (0: files directly inside). */
  depth: number;
  /** Is this path one of the agent's session files? */
  isSessionFile(path: string): boolean;
}

/** A file's first and last `ENDS_BYTES` (the whole file in `head` when it is no longer). */
export interface FileEnds {
  size: number;
  head: Buffer;
  tail: Buffer;
}

/** One session of a store as the search and metadata index holds it (see `storeIndex`). */
export interface StoreIndexEntry {
  summary: SessionSummary;
  /** Every prompt, in order: id, text, time. */
  prompts: { uuid: string; text: string; timestamp: string | null }[];
  /** Messages of the session (the index's line count). */
  messages: number;
}

export interface SessionFile {
  path: string;
  sessionId: string;
  size: number;
  mtimeMs: number;
}

export interface SummarizeOptions {
  /** Only sessions whose cwd is this directory. */
  project?: string;
  /** Bytes a call may read whole to count prompts of uncached files. */
  countBudgetBytes?: number;
  now?: number;
  /** Where an agent may keep what it learned between runs (prompt counts); none: memory only. */
  cacheDir?: string | null;
}

/** One prompt's turn as the details pane draws it (the getTurn contract): items, model, images. */
export type TurnDetail = ResponseOf<'getTurn'>;
export type { TurnItem };

export type RewindMode = 'fork' | 'in-place';

export interface RewindRequest {
  transcriptPath: string;
  /** How many prompts back along the live path, or the prompt to cut before. */
  n?: number;
  promptUuid?: string;
  /** The number the timeline shows for that prompt: a fork's journal record keeps it for its label ("fork at #n"). */
  promptNumber?: number;
  mode: RewindMode;
  dryRun?: boolean;
  force?: boolean;
  /** Where backups and the journal go; null: the session's own cwd, when project.ts `sessionJournalRoot` allows it. */
  projectRoot: string | null;
  /** The folder the user works in (the CLI's cwd): the session's cwd may hold the journal when this is inside it. */
  here?: string | null;
  /** The agent's root (`root()`), when the caller knows it better than the file's location. */
  agentRoot?: string | null;
  /** An in-place rewrite of a session written this recently is refused without `force`. */
  liveWindowMs?: number;
  /** Prompts on the live path, when the caller parsed the session: the statement numbers prompts (#n). */
  livePromptCount?: number | null;
  /** The size the user's preview was made at: a session that changed since is refused. */
  expectSize?: number;
  /** Journal records of one user action share a group: one undo reverts them all. */
  journalGroup?: string;
}

/** What `undoRewind` is handed of a fork or in-place journal record. */
export interface StoreUndoRecord {
  kind: 'fork' | 'in-place';
  transcript: string;
  sessionId: string;
  forkSessionId?: string;
  forkPath?: string;
  result: { size: number; head: string; tail: string };
  backupPath?: string;
}

/** A prompt as the rewind statement names it. */
export interface StatedPrompt {
  uuid: string;
  text: string;
  images: number;
  timestamp: string | null;
  /** Its number on the current live path (#n), when known; null on an abandoned branch or when not counted. */
  number: number | null;
  /** On the current live path. */
  live: boolean;
}

/**
 * What a rewind does to the conversation, read off the plan (not predicted from the timeline): the
 * CLI's dry run, its JSON and the window's preview all print it (wording.statementLines).
 */
export interface RewindStatement {
  mode: RewindMode;
  /** The last prompt that stays (the result resumes after its turn); null: nothing before it. */
  keptEnd: StatedPrompt | null;
  /** Prompts of the current live path the result no longer holds, oldest first. */
  droppedLive: StatedPrompt[];
  /** The target was on an abandoned branch: the prompts after it on that branch, also gone (the target excluded). */
  droppedBranch: StatedPrompt[];
  /**
   * Prompts of other abandoned branches an in-place rewrite removes from the file (its resume
   * would otherwise land on them, or they lie after the cut), oldest first; undo brings them back.
   * Always empty for a fork: the original keeps them.
   */
  droppedOther: StatedPrompt[];
  /** Prompts of other abandoned branches the in-place result still holds (0 for a fork). */
  keptAbandoned: number;
  /** Of `droppedLive`, how many the in-place result still holds as an abandoned branch (Gemini's `$rewindTo`, Qwen's kept branches). */
  droppedLiveKept?: number;
  /** The prompt(s) handed back to edit and send again, oldest first. */
  handedBack: StatedPrompt[];
  /** The target is on the live path. */
  targetLive: boolean;
  /** Messages of an abandoned branch inside the kept part, left out so the resume lands where stated. */
  leftOutMessages: number;
}

export interface RevertedPrompt {
  uuid: string;
  text: string;
  images: number;
  timestamp: string | null;
  offset: number;
}

export interface RewindOutcome {
  mode: RewindMode;
  dryRun: boolean;
  transcript: string;
  sessionId: string;
  /** Bytes of the original kept (the cut). */
  boundaryOffset: number;
  resultSize: number;
  droppedMessages: number;
  /** The prompts left out, oldest first. */
  prompts: RevertedPrompt[];
  forkSessionId: string | null;
  forkPath: string | null;
  backupPath: string | null;
  projectRoot: string | null;
  journalId: string | null;
  bytesScanned: number;
  warnings: string[];
  /** What the result keeps, leaves out and hands back; agents that cannot say yet leave it out. */
  statement?: RewindStatement | null;
  /** The session's size when planned (a confirm compares it). */
  size?: number;
  /** A running agent has the rewound session open (a fork is allowed; an in-place rewrite was refused). */
  open?: OpenSession | null;
  /** After a fork of an open session: one line how to continue on the fork in that agent. */
  handBack?: string | null;
}

/** The capability behind `codeHistory`: loaded lazily by the adapter (its parsers stay off the hot path). */
export interface CodeHistory {
  /** What the source is called where a preview or the CLI names it: "Claude's own file history". */
  readonly label: string;
  /** What a restore from it puts back, in the note beside the label: "only files Claude edited are restored". */
  readonly covers: string;
  /**
   * The timeline marks the prompts this store covers (`nativeCheckpoint`): the window offers code
   * restore only there. Without it the window offers it on every live prompt and the preview says
   * when the store has nothing.
   */
  readonly marksPrompts?: boolean;
  /**
   * The project's files as they were before a prompt, from the agent's own store; null when the
   * store holds nothing for that prompt (the caller says so and uses Rewind's checkpoints). Throws
   * a one-line RewindError when the store is there but cannot be read whole (a missing blob).
   */
  before(req: CodeBeforeRequest): Promise<CodeBefore | null>;
}

export interface CodeBeforeRequest {
  /** The session file. */
  transcriptPath: string;
  promptUuid: string;
  /** Paths outside it are reported, never restored. */
  projectRoot: string;
  /** The agent's root when the caller knows it better than the session file's location. */
  agentRoot?: string | null;
}

/** A file as the store had it: content by sha256 (what Rewind's trees use), mode when the store kept one. */
export interface StoredFile {
  ref: string;
  size: number;
  mode: number | null;
}

export interface CodeBefore {
  /** Project-relative '/' paths: the file then, or null when it did not exist then (restoring deletes it). */
  files: Map<string, StoredFile | null>;
  /**
   * 'tracked': only the paths in `files` are the store's business (Claude, Droid, Qwen track files
   * one by one); 'tree': the store holds the whole tree, so any other file is one to delete
   * (Gemini's snapshot commits).
   */
  scope: 'tracked' | 'tree';
  /** Content of a `ref` named in `files`. */
  read(ref: string): Promise<Buffer>;
  /** Absolute paths the store names outside the project: left alone. */
  outside: string[];
  /** What the store cannot say (evicted content, a file it lost track of), one line each. */
  unknown: string[];
}
