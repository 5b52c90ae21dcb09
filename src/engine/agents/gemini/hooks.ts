import type { AgentHooks, HookPayload } from '../../hooks/agent-hooks.js';
import { configIn, firstPromptAfter, toolEvent } from '../hook-parts.js';

const FILES = { write_file: ['file_path'], replace: ['file_path'] } as const;
const READ_ONLY = new Set(['read_file', 'read_many_files', 'list_directory', 'glob', 'search_file_content', 'grep_search', 'google_web_search', 'web_fetch', 'write_todos', 'save_memory']);

/**
 * Gemini CLI 0.61 (FORMATS.md §2c): `hooks` in `~/.gemini/settings.json`, each hook named, its
 * timeout in milliseconds. BeforeAgent fires before the prompt is written and names no prompt:
 * the id (the user message's id, as the timeline shows it) is read from the file afterwards.
 */
export const geminiHooks: AgentHooks = {
  scopes: ['user', 'project'],
  configPath: (scope, place) => configIn(scope, place, '.gemini', 'settings.json'),
  events: [{ event: 'BeforeAgent' }, { event: 'BeforeTool', matcher: '*' }, { event: 'AfterTool', matcher: '*' }, { event: 'AfterAgent' }],
  wrapped: true,
  // Gemini strips comments from its settings.json before parsing it.
  jsonc: true,
  entry: (command) => ({ name: 'rewind', type: 'command', command, timeout: 30_000 }),
  read(p: HookPayload) {
    switch (p.hook_event_name) {
      case 'BeforeAgent':
        return { kind: 'prompt', promptUuid: null, promptId: null };
      case 'BeforeTool':
        return toolEvent(p, 'pre', { files: FILES, readOnly: READ_ONLY });
      case 'AfterTool':
        return toolEvent(p, 'post', { files: FILES, readOnly: READ_ONLY });
      case 'AfterAgent':
        return { kind: 'stop' };
      default:
        return { kind: 'other' };
    }
  },
  async promptAfter(path, offset) {
    const { geminiPromptText } = await import('./replay.js');
    return firstPromptAfter(path, offset, (v) => (typeof v.id === 'string' && geminiPromptText(v) ? v.id : null));
  },
  disabledReason: (text) => (text && /"hooksConfig"\s*:\s*\{[^}]*"enabled"\s*:\s*false/.test(text) ? 'hooksConfig.enabled is false' : null),
};
