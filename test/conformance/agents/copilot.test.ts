import { describe } from 'vitest';
import { copilot } from '../../../src/engine/agents/copilot/adapter.js';
import { chatModelApi } from './chat-model.js';
import { copilotDriver } from './drivers.js';
import { COPILOT_CLI, ensureNpmCli, orSkip } from './npm-cli.js';
import { agentConformance } from './suite.js';

/** GitHub Copilot CLI 1.0.102 as the judge (FORMATS.md §2e): BYOK offline against the scripted model. */
const COPILOT = orSkip('GitHub Copilot CLI', ensureNpmCli(COPILOT_CLI));

describe.runIf(COPILOT)('GitHub Copilot CLI', () => {
  agentConformance({
    name: 'GitHub Copilot CLI',
    adapter: copilot,
    startApi: chatModelApi,
    ...copilotDriver(COPILOT?.cmd ?? []),
    prompts: ['WRITE a.txt version one', 'BASH echo bashmade > c.txt', 'just chatting'],
    tools: [['create'], ['bash'], []],
  });
});
