import { storeAgent } from '../sqlite-adapter.js';
import { kiloHooks } from './hooks.js';
import type { JudgedVersions } from '../judged.js';
import judged from './judged.json' with { type: 'json' };

/**
 * Kilo CLI (`@kilocode/cli`), a fork of OpenCode: the same store with a few more tables
 * (`~/.local/share/kilo/kilo.db`, `KILO_*` env), rewritten by its own server (`kilo serve`).
 */
export const kilo = storeAgent({ id: 'kilo', displayName: 'Kilo CLI', badge: 'Kilo', command: 'kilo', envPrefix: 'KILO', hooks: kiloHooks, judged: judged as JudgedVersions });
