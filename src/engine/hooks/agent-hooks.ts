/**
 * What an agent's hooks look like to Rewind: where its config lives, which events Rewind adds,
 * and what one payload means. Each agent's folder implements it (`agents/<id>/hooks.ts`); the
 * hook handler, `rewind-app hooks` and the window reach it only through the adapter's `hooks`.
 */

export type HookScope = 'user' | 'project' | 'local';

/** Where the config of a scope is: the agent's root (its home folder) and the project. */
export interface HookPlace {
  projectRoot: string;
  /** The agent's own folder (`~/.codex`, `~/.qwen`...), as the adapter's `root()` derives it. */
  agentHome: string;
  /** The environment (where an agent's config folder is not its `root()`: OpenCode's `XDG_CONFIG_HOME`). */
  env?: NodeJS.ProcessEnv;
}

/** One payload, as Rewind acts on it. */
export type HookEvent =
  /** A session (re)started: the pointer is recorded; `turn` when it also opens a prompt's turn (Droid `exec`). */
  | { kind: 'session'; turn: boolean }
  /**
   * A prompt is submitted. `promptUuid`/`promptId`: the id the timeline shows for it (uuid) or
   * the prompt id the timeline carries (`promptId`), when the payload names it; both null when
   * the prompt is read from the transcript later (its id is not in the payload).
   */
  | { kind: 'prompt'; promptUuid: string | null; promptId: string | null }
  /** A repeat of the prompt event (Qwen's after each tool result): not a new prompt. */
  | { kind: 'repeat' }
  /** A tool call: `files` the paths it names, null when its effects cannot be named (a shell). */
  | { kind: 'tool'; phase: 'pre' | 'post'; tool: string; files: string[] | null; readOnly: boolean }
  /** The turn ended. */
  | { kind: 'stop' }
  | { kind: 'other' };

/** The fields every agent's payload shares (each agent adds its own). */
export interface HookPayload {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  prompt_id?: string;
  prompt?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  [k: string]: unknown;
}

/**
 * How the agent parses a JSON config, matched by Rewind so it refuses only what the agent refuses:
 * `true` JSONC (comments and trailing commas), `'comments'` comments but no trailing comma (Droid),
 * false strict JSON (Claude Code, Codex).
 */
export type JsonDialect = boolean | 'comments';

/** One event Rewind adds to the agent's config. */
export interface HookEventSpec {
  event: string;
  matcher?: string;
}

export interface AgentHooks {
  /** Scopes the agent reads hooks from, the default first. */
  readonly scopes: readonly HookScope[];
  /** The config file Rewind edits for a scope. */
  configPath(scope: HookScope, place: HookPlace): string;
  /** Events (and matchers) Rewind adds. */
  readonly events: readonly HookEventSpec[];
  /** The events sit under a top-level `"hooks"` key (Claude, Codex, Qwen, Gemini) or at the top (Droid's hooks.json). */
  readonly wrapped: boolean;
  /** The agent reads its hook config as JSONC (comments, trailing commas): so does Rewind. */
  readonly jsonc?: JsonDialect;
  /** Its hook command is plain `rewind-app hook` (the first agent's, installed before `--agent` existed). */
  readonly bareCommand?: boolean;
  /** One hook entry as the agent takes it (its timeout unit, a name...). */
  entry(command: string): Record<string, unknown>;
  /** The project folder the payload names (its own env var first), else null (the payload's cwd). */
  projectDir?(env: NodeJS.ProcessEnv): string | null;
  /** The payload with what the agent leaves out of it filled in (Copilot names its session file only at Stop). */
  payload?(p: HookPayload, env: NodeJS.ProcessEnv): HookPayload;
  /** What a payload means. */
  read(p: HookPayload): HookEvent;
  /**
   * The id the timeline shows for the first prompt written at or after `offset` of the session
   * file (null: none yet). For agents whose prompt event fires before the prompt is written, or
   * not at all: the hook ties its checkpoint to the prompt once it is there.
   */
  promptAfter?(transcriptPath: string, offset: number): Promise<string | null>;
  /** Why the agent would not run installed hooks, read from its config (null: it will run them). */
  disabledReason?(configText: string | null, scope: HookScope): string | null;
  /**
   * The agent takes hooks as a plugin file of its own (OpenCode, Kilo: JS) instead of entries in a
   * JSON config: `configPath` is then that file, Rewind's own, written whole with `text`.
   */
  readonly plugin?: HookPlugin;
  /** Codex: hooks run only once trusted. */
  readonly trust?: HookTrust;
}

export interface HookTrust {
  /** The one step the user takes, in the agent's own terms. */
  readonly howTo: string;
  /**
   * Is each of Rewind's installed hooks trusted? null when it cannot tell (the CLI is not found).
   * `command`: the exact command Rewind installed (read from the config), the only one that is Rewind's.
   */
  status(place: HookPlace, env: NodeJS.ProcessEnv, configFile: string, command: string | null): Promise<{ trusted: boolean; detail: string } | null>;
  /**
   * Records trust for Rewind's hooks the way the agent stores it; returns what it wrote. Only hooks
   * whose command is exactly `command` (the one just installed): a project's own hook that merely
   * ends like Rewind's (`curl … | sh; rewind-app hook --agent codex`) is never trusted by Rewind.
   */
  record(place: HookPlace, env: NodeJS.ProcessEnv, configFile: string, command: string): Promise<string[]>;
}

export interface HookPlugin {
  /** The plugin's source, running `command` (`rewind-app hook --agent <id>`) for each event. */
  text(command: string): string;
  /** The installed plugin's command, read back from its text (null: not Rewind's plugin). */
  commandOf(text: string): string | null;
}
