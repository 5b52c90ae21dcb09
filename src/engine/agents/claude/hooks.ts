import { join } from 'node:path';
import type { AgentHooks, HookPayload } from '../../hooks/agent-hooks.js';
import { claudeStyleEvent } from '../hook-parts.js';

// A regex to Claude Code (it has `.`): anchored, so TodoWrite or BashOutput do not call the hook.
// MCP tools (`mcp__server__tool`) may write files: their pre-hook waits for the prompt's checkpoint
// and their post-hook marks the prompt for a whole-tree look, like a shell.
export const TOOL_MATCHER = '^(?:Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task|mcp__.+)$';
const FILES = { Write: ['file_path'], Edit: ['file_path'], MultiEdit: ['file_path'], NotebookEdit: ['notebook_path'] } as const;
const READ_ONLY = new Set(['Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch', 'TodoWrite', 'ToolSearch', 'ExitPlanMode', 'BashOutput']);

/**
 * Claude Code (FORMATS.md §1 "Hooks"): settings.json files, the prompt event's `prompt_id` is the
 * `promptId` the prompt's line will carry. Its hook command is `rewind-app hook` (no `--agent`).
 */
export const claudeHooks: AgentHooks = {
  scopes: ['local', 'project', 'user'],
  configPath: (scope, place) =>
    scope === 'user' ? join(place.agentHome, 'settings.json') : join(place.projectRoot, '.claude', scope === 'project' ? 'settings.json' : 'settings.local.json'),
  // Stop: the turn's end checkpoint, a revert's boundary (edits by hand after the turn are not the prompt's).
  events: [{ event: 'UserPromptSubmit' }, { event: 'PreToolUse', matcher: TOOL_MATCHER }, { event: 'PostToolUse', matcher: TOOL_MATCHER }, { event: 'Stop' }],
  wrapped: true,
  bareCommand: true,
  entry: (command) => ({ type: 'command', command, timeout: 30 }),
  projectDir: (env) => env.CLAUDE_PROJECT_DIR || null,
  read: (p: HookPayload) =>
    claudeStyleEvent(p, {
      names: { files: FILES, readOnly: READ_ONLY },
      sessionTurn: false,
      prompt: (x) => ({ kind: 'prompt', promptUuid: null, promptId: typeof x.prompt_id === 'string' ? x.prompt_id : null }),
    }),
  disabledReason: (text) => (text && /"disableAllHooks"\s*:\s*true/.test(text) ? 'disableAllHooks is set' : null),
};
