import { describe } from 'vitest';
import { opencode } from '../../../src/engine/agents/opencode/adapter.js';
import { chatModelApi } from './chat-model.js';
import { codeConformance } from './code-suite.js';
import { ensureNpmCli, orSkip } from './npm-cli.js';
import { OPENCODE, storeDriver } from './store-cli.js';

/** OpenCode 1.18.33 with Rewind's plugin (FORMATS.md §2e): every prompt a `opencode run -s ID P` run. */
const CLI = orSkip('OpenCode', ensureNpmCli(OPENCODE.cli));

describe.runIf(CLI)('OpenCode', () => {
  codeConformance({
    name: 'OpenCode',
    adapter: opencode,
    startApi: chatModelApi,
    ...storeDriver(OPENCODE, CLI?.cmd[0] ?? ''),
  });
});
