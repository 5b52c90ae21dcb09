import { describe } from 'vitest';
import { kilo } from '../../../src/engine/agents/kilo/adapter.js';
import { chatModelApi } from './chat-model.js';
import { codeConformance } from './code-suite.js';
import { ensureNpmCli, orSkip } from './npm-cli.js';
import { KILO, storeDriver } from './store-cli.js';

/** Kilo CLI 7.7.7 with Rewind's plugin (FORMATS.md §2e): every prompt a `kilo run -s ID P` run. */
const CLI = orSkip('Kilo CLI', ensureNpmCli(KILO.cli));

describe.runIf(CLI)('Kilo CLI', () => {
  codeConformance({
    name: 'Kilo CLI',
    adapter: kilo,
    startApi: chatModelApi,
    ...storeDriver(KILO, CLI?.cmd[0] ?? ''),
  });
});
