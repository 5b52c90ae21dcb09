import type { Action } from './store/action-slice.js';

/** The key of each action, shown on its button and in the palette (Enter on a prompt goes to its actions). */
export const ACTION_KEY: Record<Action, string> = { fork: 'F', rewrite: 'R', restore: 'C', 'fork-restore': 'B' };
export const ACTION_OF_KEY: Record<string, Action> = { f: 'fork', r: 'rewrite', c: 'restore', b: 'fork-restore' };
