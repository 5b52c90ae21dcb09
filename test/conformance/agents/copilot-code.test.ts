import { describe } from 'vitest';
import { copilot } from '../../../src/engine/agents/copilot/adapter.js';
import { chatModelApi } from './chat-model.js';
import { codeConformance } from './code-suite.js';
import { copilotDriver } from './drivers.js';
import { COPILOT_CLI, ensureNpmCli, orSkip } from './npm-cli.js';

/** GitHub Copilot CLI 1.0.102 with Rewind's hooks (FORMATS.md §2e): every prompt a `copilot -p P --resume ID` run. */
const COPILOT = orSkip('GitHub Copilot CLI', ensureNpmCli(COPILOT_CLI));

describe.runIf(COPILOT)('GitHub Copilot CLI', () => {
  codeConformance({
    name: 'GitHub Copilot CLI',
    adapter: copilot,
    startApi: chatModelApi,
    ...copilotDriver(COPILOT?.cmd ?? []),
    // Copilot's `create` refuses a file that exists: the edit is a shell one.
    editPrompt: 'BASH echo version two > a.txt',
  });
});
