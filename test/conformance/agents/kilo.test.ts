import { describe } from 'vitest';
import { kilo } from '../../../src/engine/agents/kilo/adapter.js';
import { ensureNpmCli, orSkip } from './npm-cli.js';
import { KILO } from './store-cli.js';
import { storeConformance } from './store-suite.js';

/** Kilo CLI 7.7.7 as the judge (FORMATS.md §2e): OpenCode's store and server, `KILO_*` env. */
const CLI = orSkip('Kilo CLI', ensureNpmCli(KILO.cli));

describe.runIf(CLI)('Kilo CLI', () => {
  storeConformance(KILO, kilo, CLI?.cmd[0] ?? '');
});
