import { storeAgent } from '../sqlite-adapter.js';
import { kiloHooks } from './hooks.js';
import type { JudgedVersions } from '../judged.js';
import judged from './judged.json' with { type: 'json' };

/**
 * Kilo CLI (`@kilocode/cli`), a fork of OpenCode: the same store with a few more tables
 * (`~/.local/share/kilo/kilo.db`, `KILO_*` env), rewritten by its own server (`kilo serve`).
 */
export const kilo = storeAgent({
  id: 'kilo',
  displayName: 'Kilo CLI',
  badge: 'Kilo',
  command: 'kilo',
  envPrefix: 'KILO',
  hooks: kiloHooks,
  judged: judged as JudgedVersions,
  // Kilo gives up a snapshot of the worktree after 10 s (then bypasses snapshots for the folder until
  // the server ends, and its unrevert fails with "Unexpected server error"): a busy machine can take
  // that long. Its own knob; 2 min, the turn budget it uses itself.
  serveEnv: { KILO_SNAPSHOT_TRACK_TIMEOUT_MS: '120000' },
});
