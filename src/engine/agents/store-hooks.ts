import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentHooks, HookPayload, HookPlace, HookScope } from '../hooks/agent-hooks.js';
import { claudeStyleEvent } from './hook-parts.js';
import { sessionRef } from './sqlite-sessions.js';

/**
 * Rewind's checkpoints for an agent of an OpenCode-style store (OpenCode, Kilo): a JS plugin the
 * agent loads from `plugins/*.js` of its config folders (`$XDG_CONFIG_HOME/<command>/` for the
 * user, `<project>/.<command>/` for the project; FORMATS.md §2e, the glob read in the 1.18.33
 * bundle). Its hooks (`chat.message`, `tool.execute.before/after`, `event` session.idle) run
 * `rewind-app hook --agent <id>` with a Claude-style payload on stdin, awaited: the prompt's
 * checkpoint is taken before the turn's first tool runs. The payload names the user message's id,
 * the id the timeline shows for the prompt. The plugin imports only Node's `child_process` (no
 * package of the agent's): loading it needs nothing installed.
 */

export interface StoreHookNames {
  /** The CLI ("opencode"): its config folder's name and its store's (`<command>.db`). */
  command: string;
  envPrefix: string;
  displayName: string;
}

// OpenCode's tools (1.18.33): the path fields of the ones that write a named file.
const FILES = { write: ['filePath'], edit: ['filePath'], multiedit: ['filePath'] } as const;
const READ_ONLY = new Set(['read', 'glob', 'grep', 'list', 'todoread', 'todowrite', 'webfetch', 'websearch', 'codesearch', 'skill', 'question', 'lsp']);

/** The files a patch names (`*** Add File: p`, `*** Update File: p`, `*** Delete File: p`, `*** Move to: p`). */
export function patchFiles(p: HookPayload): string[] | null {
  const text = p.tool_input?.patchText;
  if (p.tool_name !== 'apply_patch' && p.tool_name !== 'patch') return null;
  if (typeof text !== 'string') return null;
  const files = [...text.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)].map((m) => m[1]!.trim());
  return files.length ? files : null;
}

const MARK = '// Rewind checkpoints plugin';
const COMMAND_LINE = '// rewind-command: ';

/** The plugin's source: one exported plugin function, Node's child_process only. */
export function pluginText(n: StoreHookNames, command: string): string {
  return `${MARK} for ${n.displayName}: installed by \`rewind-app hooks install\`, removed by \`rewind-app hooks uninstall\`.
${COMMAND_LINE}${JSON.stringify(command)}
// Each prompt, tool call and turn end runs the command above with a JSON payload on stdin; a
// failing or slow command never breaks the agent (errors ignored, killed after 30 s; a command
// that cannot run is said once in the agent's log).
import { spawn, spawnSync } from 'node:child_process';

const COMMAND = ${JSON.stringify(command)};

// A command that cannot run (rewind-app uninstalled or moved) is said once, in the agent's log.
let warned = false;
let log = (line) => console.error(line);
function warnOnce(why) {
  if (warned) return;
  warned = true;
  try {
    log(\`Rewind's checkpoint hook did not run (\${COMMAND}): \${why}; the agent goes on without Rewind's checkpoints\`);
  } catch {
    // never the agent's problem
  }
}

function send(payload) {
  return new Promise((resolve) => {
    try {
      const child = spawn(COMMAND, { shell: true, stdio: ['pipe', 'ignore', 'ignore'] });
      const timer = setTimeout(() => child.kill(), 30000);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      child.on('error', (e) => {
        warnOnce(e?.message ?? String(e));
        done();
      });
      child.on('close', (code) => {
        // 126/127: the shell found no such command, or could not run it.
        if (code === 127 || code === 126) warnOnce(\`exit \${code}\`);
        done();
      });
      child.stdin.on('error', () => {});
      child.stdin.end(JSON.stringify(payload));
    } catch (e) {
      warnOnce(e?.message ?? String(e));
      resolve();
    }
  });
}

// The turn's end: the agent does not await an event handler (\`run\` may exit while it runs, and the
// turn-end checkpoint would then be taken late, after the user's next edits): run to completion here.
function sendNow(payload) {
  try {
    const r = spawnSync(COMMAND, { shell: true, input: JSON.stringify(payload), stdio: ['pipe', 'ignore', 'ignore'], timeout: 30000 });
    if (r.error) warnOnce(r.error.message ?? String(r.error));
    else if (r.status === 127 || r.status === 126) warnOnce(\`exit \${r.status}\`);
  } catch (e) {
    warnOnce(e?.message ?? String(e));
  }
}

export const RewindCheckpoints = async ({ directory, client }) => {
  // The agent's own log, when its client offers one (OpenCode's and Kilo's \`app.log\`).
  if (typeof client?.app?.log === 'function') log = (message) => client.app.log({ body: { service: 'rewind', level: 'warn', message } }).catch(() => console.error(message));
  const args = new Map();
  const base = (sessionID) => ({ session_id: sessionID, cwd: directory });
  return {
    'chat.message': async (input, output) => {
      const parts = Array.isArray(output?.parts) ? output.parts : [];
      const prompt = parts.filter((p) => p?.type === 'text' && !p.synthetic).map((p) => p.text).join('\\n');
      await send({ ...base(input?.sessionID), hook_event_name: 'UserPromptSubmit', prompt_id: output?.message?.id ?? input?.messageID ?? null, prompt });
    },
    'tool.execute.before': async (input, output) => {
      args.set(input?.callID, output?.args ?? {});
      await send({ ...base(input?.sessionID), hook_event_name: 'PreToolUse', tool_name: input?.tool, tool_input: output?.args ?? {} });
    },
    'tool.execute.after': async (input) => {
      const toolInput = input?.args ?? args.get(input?.callID) ?? {};
      args.delete(input?.callID);
      await send({ ...base(input?.sessionID), hook_event_name: 'PostToolUse', tool_name: input?.tool, tool_input: toolInput });
    },
    event: async ({ event }) => {
      if (event?.type === 'session.idle') sendNow({ ...base(event.properties?.sessionID), hook_event_name: 'Stop' });
    },
  };
};
`;
}

/** The command an installed plugin runs (null: the text is not Rewind's plugin). */
export function pluginCommand(text: string): string | null {
  if (!text.startsWith(MARK)) return null;
  const line = text.split('\n').find((l) => l.startsWith(COMMAND_LINE));
  if (!line) return null;
  try {
    const v = JSON.parse(line.slice(COMMAND_LINE.length)) as unknown;
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** The user's config folder of the agent: `$XDG_CONFIG_HOME/<command>` (else `~/.config/<command>`). */
const configHome = (n: StoreHookNames, env: NodeJS.ProcessEnv) => join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), n.command);

/** The store the hook's session lives in, as the adapter's `root()` derives it. */
function storeOf(n: StoreHookNames, env: NodeJS.ProcessEnv): string {
  const db = env[`${n.envPrefix}_DB`];
  if (db) return db;
  return join(env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'), n.command, `${n.command}.db`);
}

export function storeHooks(n: StoreHookNames): AgentHooks {
  return {
    scopes: ['user', 'project'],
    configPath: (scope: HookScope, place: HookPlace) => join(scope === 'user' ? configHome(n, place.env ?? process.env) : join(place.projectRoot, `.${n.command}`), 'plugins', 'rewind.js'),
    events: [{ event: 'chat.message' }, { event: 'tool.execute.before' }, { event: 'tool.execute.after' }, { event: 'event' }],
    wrapped: false,
    entry: (command) => ({ command }),
    plugin: { text: (command) => pluginText(n, command), commandOf: pluginCommand },
    payload(p: HookPayload, env: NodeJS.ProcessEnv): HookPayload {
      if (p.transcript_path || typeof p.session_id !== 'string' || !/^ses_[A-Za-z0-9]+$/.test(p.session_id)) return p;
      return { ...p, transcript_path: sessionRef(storeOf(n, env), p.session_id) };
    },
    read: (p: HookPayload) =>
      claudeStyleEvent(p, {
        names: { files: FILES, readOnly: READ_ONLY },
        sessionTurn: false,
        prompt: (q) => ({ kind: 'prompt', promptUuid: typeof q.prompt_id === 'string' && q.prompt_id ? q.prompt_id : null, promptId: null }),
        extra: patchFiles,
      }),
  };
}
