import { describe } from 'vitest';
import { gemini } from '../../../src/engine/agents/gemini/adapter.js';
import { codeConformance } from './code-suite.js';
import { geminiDriver } from './drivers.js';
import { geminiModelApi } from './gemini-api.js';
import { GEMINI_CLI, ensureNpmCli, orSkip } from './npm-cli.js';

/** Gemini CLI 0.61.0 with Rewind's hooks (FORMATS.md §2c): its prompt event names no prompt id. */
const GEMINI = orSkip('Gemini CLI', ensureNpmCli(GEMINI_CLI));

describe.runIf(GEMINI)('Gemini CLI', () => {
  codeConformance({ name: 'Gemini CLI', adapter: gemini, startApi: geminiModelApi, ...geminiDriver(GEMINI?.cmd ?? []) });
});
