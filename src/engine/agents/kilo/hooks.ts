import { storeHooks } from '../store-hooks.js';

/** Rewind's checkpoints for Kilo CLI: a plugin in its config folder (store-hooks.ts). */
export const kiloHooks = storeHooks({ command: 'kilo', envPrefix: 'KILO', displayName: 'Kilo CLI' });
