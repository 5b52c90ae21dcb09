import { storeAgent } from '../sqlite-adapter.js';
import { opencodeHooks } from './hooks.js';
import type { JudgedVersions } from '../judged.js';
import judged from './judged.json' with { type: 'json' };

/**
 * OpenCode (`opencode-ai`): sessions in the SQLite store `~/.local/share/opencode/opencode.db`
 * (FORMATS.md §2e), read with sql.js and rewritten by its own server (`opencode serve`).
 */
export const opencode = storeAgent({ id: 'opencode', displayName: 'OpenCode', badge: 'OpenCode', command: 'opencode', envPrefix: 'OPENCODE', hooks: opencodeHooks, judged: judged as JudgedVersions });
