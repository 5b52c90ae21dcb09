import type { AgentHooks, HookPayload } from '../../hooks/agent-hooks.js';
import { claudeStyleEvent, configIn, firstPromptAfter } from '../hook-parts.js';

const FILES = { write_file: ['file_path'], edit: ['file_path'], replace: ['file_path'] } as const;
const READ_ONLY = new Set(['read_file', 'read_many_files', 'list_directory', 'glob', 'grep_search', 'search_file_content', 'web_fetch', 'web_search', 'todo_write', 'save_memory']);

/**
 * Qwen Code 0.24 (FORMATS.md §2c): `hooks` in `~/.qwen/settings.json`. The prompt event fires
 * before the prompt is written, and again after every tool result with `prompt: ""` (not a new
 * prompt); the timeline names a prompt by its record's uuid, read from the file afterwards.
 */
export const qwenHooks: AgentHooks = {
  scopes: ['user', 'project'],
  configPath: (scope, place) => configIn(scope, place, '.qwen', 'settings.json'),
  events: [{ event: 'UserPromptSubmit' }, { event: 'PreToolUse', matcher: '*' }, { event: 'PostToolUse', matcher: '*' }, { event: 'Stop' }],
  wrapped: true,
  // Qwen (a Gemini CLI fork) strips comments from its settings.json before parsing it.
  jsonc: true,
  entry: (command) => ({ type: 'command', command, timeout: 30 }),
  read: (p: HookPayload) =>
    claudeStyleEvent(p, {
      names: { files: FILES, readOnly: READ_ONLY },
      sessionTurn: false,
      // An empty submission (a slash command re-run) is the same prompt again.
      prompt: (x) => {
        const real = (typeof x.submitted_prompt === 'string' && x.submitted_prompt !== '') || (typeof x.prompt === 'string' && x.prompt !== '');
        return real ? { kind: 'prompt', promptUuid: null, promptId: null } : { kind: 'repeat' };
      },
    }),
  async promptAfter(path, offset) {
    const { qwenPromptText } = await import('./parse.js');
    return firstPromptAfter(path, offset, (v) => (qwenPromptText(v) && typeof v.uuid === 'string' ? v.uuid : null));
  },
  disabledReason: (text) => (text && /"disableAllHooks"\s*:\s*true/.test(text) ? 'disableAllHooks is set' : null),
};
