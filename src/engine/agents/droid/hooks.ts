import type { AgentHooks, HookPayload } from '../../hooks/agent-hooks.js';
import { configIn, firstPromptAfter, toolEvent } from '../hook-parts.js';

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
  entry: (command) => ({ type: 'command', command, timeout: 30 }),
  read(p: HookPayload) {
    switch (p.hook_event_name) {
      case 'SessionStart':
        return { kind: 'session', turn: true };
      case 'UserPromptSubmit':
        return { kind: 'prompt', promptUuid: null, promptId: null };
      case 'PreToolUse':
        return toolEvent(p, 'pre', { files: FILES, readOnly: READ_ONLY });
      case 'PostToolUse':
        return toolEvent(p, 'post', { files: FILES, readOnly: READ_ONLY });
      case 'Stop':
        return { kind: 'stop' };
      default:
        return { kind: 'other' };
    }
  },
  async promptAfter(path, offset) {
    const { droidPromptText } = await import('./parse.js');
    return firstPromptAfter(path, offset, (v) => (droidPromptText(v) && typeof v.id === 'string' ? v.id : null));
  },
};
