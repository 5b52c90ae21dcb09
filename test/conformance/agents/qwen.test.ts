import { describe } from 'vitest';
import { qwen } from '../../../src/engine/agents/qwen/adapter.js';
import { chatModelApi } from './chat-model.js';
import { qwenDriver } from './drivers.js';
import { QWEN_CLI, ensureNpmCli, orSkip } from './npm-cli.js';
import { agentConformance } from './suite.js';

/** Qwen Code 0.24.4 as the judge (FORMATS.md §2b): an OpenAI-compatible model from env. */
const QWEN = orSkip(
  'Qwen Code',
  ensureNpmCli(QWEN_CLI),
);

describe.runIf(QWEN)('Qwen Code', () => {
  agentConformance({
    name: 'Qwen Code',
    adapter: qwen,
    startApi: chatModelApi,
    ...qwenDriver(QWEN?.cmd ?? []),
    prompts: ['WRITE a.txt version one', 'WRITE b.txt bee', 'BASH echo bashmade > c.txt', 'just chatting'],
    tools: [['write_file'], ['write_file'], ['run_shell_command'], []],
  });
});
