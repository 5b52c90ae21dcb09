import { describe } from 'vitest';
import { opencode } from '../../../src/engine/agents/opencode/adapter.js';
import { ensureNpmCli, orSkip } from './npm-cli.js';
import { OPENCODE } from './store-cli.js';
import { storeConformance } from './store-suite.js';

/** OpenCode 1.18.33 as the judge (FORMATS.md §2e): a custom provider, offline. */
const CLI = orSkip('OpenCode', ensureNpmCli(OPENCODE.cli));

describe.runIf(CLI)('OpenCode', () => {
  storeConformance(OPENCODE, opencode, CLI?.cmd[0] ?? '');
});
