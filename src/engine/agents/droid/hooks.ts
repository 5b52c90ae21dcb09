import type { AgentHooks, HookPayload } from '../../hooks/agent-hooks.js';
import { claudeStyleEvent, configIn, firstPromptAfter } from '../hook-parts.js';

const FILES = { Create: ['file_path'], Edit: ['file_path'], MultiEdit: ['file_path'] } as const;
const READ_ONLY = new Set(['Read', 'LS', 'Grep', 'Glob', 'TodoWrite', 'WebSearch', 'FetchUrl', 'ExitSpecMode']);

/**
 * Factory Droid 0.225 (FORMATS.md §2c): `~/.factory/hooks.json` with the events at the top level.
 * `droid exec` fires no prompt event: SessionStart opens each run's turn (the prompt is written
 * after it), and the prompt's id (its message id) is read from the session file at the next event.
 */
export const droidHooks: AgentHooks = {
  scopes: ['user', 'project'],
  configPath: (scope, place) => configIn(scope, place, '.factory', 'hooks.json'),
  events: [{ event: 'SessionStart' }, { event: 'UserPromptSubmit' }, { event: 'PreToolUse', matcher: '*' }, { event: 'PostToolUse', matcher: '*' }, { event: 'Stop' }],
  wrapped: false,
  // Droid 0.225 reads its JSON configs with comments, not trailing commas (measured with `droid mcp list`).
  jsonc: 'comments',
  entry: (command) => ({ type: 'command', command, timeout: 30 }),
  read: (p: HookPayload) => claudeStyleEvent(p, { names: { files: FILES, readOnly: READ_ONLY }, sessionTurn: true, prompt: () => ({ kind: 'prompt', promptUuid: null, promptId: null }) }),
  async promptAfter(path, offset) {
    const { droidPromptText } = await import('./parse.js');
    return firstPromptAfter(path, offset, (v) => (droidPromptText(v) && typeof v.id === 'string' ? v.id : null));
  },
};
