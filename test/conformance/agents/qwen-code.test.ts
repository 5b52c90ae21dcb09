import { describe } from 'vitest';
import { qwen } from '../../../src/engine/agents/qwen/adapter.js';
import { chatModelApi } from './chat-model.js';
import { codeConformance } from './code-suite.js';
import { qwenDriver } from './drivers.js';
import { QWEN_CLI, ensureNpmCli, orSkip } from './npm-cli.js';

/** Qwen Code 0.24.4 with Rewind's hooks (FORMATS.md §2c): every prompt a `qwen "P" --resume ID` run. */
const QWEN = orSkip('Qwen Code', ensureNpmCli(QWEN_CLI));

describe.runIf(QWEN)('Qwen Code', () => {
  codeConformance({
    name: 'Qwen Code',
    adapter: qwen,
    startApi: chatModelApi,
    ...qwenDriver(QWEN?.cmd ?? []),
    absolutePaths: true,
    // Qwen will not overwrite a file the session has not read (and fails `sed -i`): the edit is a shell one.
    editPrompt: 'BASH echo version two > a.txt',
  });
});
