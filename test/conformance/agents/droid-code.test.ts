import { describe } from 'vitest';
import { droid } from '../../../src/engine/agents/droid/adapter.js';
import { chatModelApi } from './chat-model.js';
import { codeConformance } from './code-suite.js';
import { droidDriver } from './drivers.js';
import { DROID_CLI, ensureNpmCli, orSkip } from './npm-cli.js';

/** Factory Droid 0.225 with Rewind's hooks (FORMATS.md §2c): `droid exec` fires no prompt event. */
const DROID = orSkip('Factory Droid', ensureNpmCli(DROID_CLI));

describe.runIf(DROID)('Factory Droid', () => {
  codeConformance({ name: 'Factory Droid', adapter: droid, startApi: chatModelApi, ...droidDriver(DROID?.cmd ?? []) });
});
