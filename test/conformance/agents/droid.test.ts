import { describe } from 'vitest';
import { droid } from '../../../src/engine/agents/droid/adapter.js';
import { chatModelApi } from './chat-model.js';
import { droidDriver } from './drivers.js';
import { DROID_CLI, ensureNpmCli, orSkip } from './npm-cli.js';
import { agentConformance } from './suite.js';

/** Factory Droid 0.225 as the judge (FORMATS.md §2b): a custom Chat Completions model, no login. */
const DROID = orSkip(
  'Factory Droid',
  ensureNpmCli(DROID_CLI),
);

describe.runIf(DROID)('Factory Droid', () => {
  agentConformance({
    name: 'Factory Droid',
    adapter: droid,
    startApi: chatModelApi,
    ...droidDriver(DROID?.cmd ?? []),
    prompts: ['WRITE a.txt version one', 'WRITE b.txt bee', 'BASH echo bashmade > c.txt', 'just chatting'],
    tools: [['Create'], ['Create'], ['Execute'], []],
  });
});
