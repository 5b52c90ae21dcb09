import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentHooks, HookPayload } from '../../hooks/agent-hooks.js';
import { isSafeId } from '../../guard.js';
import { claudeStyleEvent, firstPromptAfter } from '../hook-parts.js';

// Copilot sends Claude's tool names in Claude-format payloads (`create` as Write, `bash` as Bash) with its own arguments (`path`).
const FILES = { Write: ['path', 'file_path'], Edit: ['path', 'file_path'], MultiEdit: ['path', 'file_path'], create: ['path'], edit: ['path'] } as const;
const READ_ONLY = new Set(['Read', 'view', 'Glob', 'glob', 'Grep', 'grep', 'LS', 'WebFetch', 'web_fetch', 'fetch_copilot_cli_documentation', 'read_bash', 'list_bash', 'list_agents', 'read_agent', 'report_intent', 'TodoWrite']);

/**
 * GitHub Copilot CLI 1.0.102 (FORMATS.md §2e): hooks in `settings.json` of its home (user) or any
 * `.github/hooks/*.json` of the project (run only in a folder Copilot trusts). It takes Claude
 * Code's events and hook groups there and then sends Claude-format payloads (`hook_event_name`,
 * `session_id`, `tool_name`, `tool_input`; measured), but names the session file only at Stop: the
 * path is filled in from the session id. The prompt event fires before the prompt is written; the
 * prompt's id is read from the file afterwards.
 */
export const copilotHooks: AgentHooks = {
  scopes: ['user', 'project'],
  configPath: (scope, place) => (scope === 'user' ? join(place.agentHome, 'settings.json') : join(place.projectRoot, '.github', 'hooks', 'rewind.json')),
  events: [{ event: 'UserPromptSubmit' }, { event: 'PreToolUse', matcher: '*' }, { event: 'PostToolUse', matcher: '*' }, { event: 'Stop' }],
  wrapped: true,
  // Copilot 1.0 reads its JSON configs as JSONC (comments, trailing commas: measured with `copilot mcp list`).
  jsonc: true,
  entry: (command) => ({ type: 'command', command, timeout: 30 }),
  projectDir: (env) => env.COPILOT_PROJECT_DIR || null,
  payload(p: HookPayload, env: NodeJS.ProcessEnv): HookPayload {
    if (p.transcript_path || !isSafeId(p.session_id)) return p;
    const home = env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot');
    return { ...p, transcript_path: join(home, 'session-state', p.session_id, 'events.jsonl') };
  },
  read: (p: HookPayload) =>
    claudeStyleEvent(p, {
      names: { files: FILES, readOnly: READ_ONLY },
      sessionTurn: false,
      prompt: () => ({ kind: 'prompt', promptUuid: null, promptId: null }),
    }),
  async promptAfter(path, offset) {
    const { copilotPromptText } = await import('./parse.js');
    return firstPromptAfter(path, offset, (v) => (copilotPromptText(v) && typeof v.id === 'string' ? v.id : null));
  },
  disabledReason: (text) => (text && /"disableAllHooks"\s*:\s*true/.test(text) ? 'disableAllHooks is set' : null),
};
