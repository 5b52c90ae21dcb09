import { storeHooks } from '../store-hooks.js';

/** Rewind's checkpoints for OpenCode: a plugin in its config folder (store-hooks.ts). */
export const opencodeHooks = storeHooks({ command: 'opencode', envPrefix: 'OPENCODE', displayName: 'OpenCode' });
