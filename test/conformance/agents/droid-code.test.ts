import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from 'vitest';
import { droid } from '../../../src/engine/agents/droid/adapter.js';
import { chatModelApi } from './chat-model.js';
import { codeConformance } from './code-suite.js';
import { DROID_CLI, ensureNpmCli, orSkip, runCli } from './npm-cli.js';
import type { ModelApi } from './suite.js';

/** Factory Droid 0.225 with Rewind's hooks (FORMATS.md §2c): `droid exec` fires no prompt event. */
const DROID = orSkip('Factory Droid', ensureNpmCli(DROID_CLI));

// Without FACTORY_API_BASE_URL answering 404, `exec -s` fails "Failed to fetch session".
const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, FACTORY_API_BASE_URL: api.url, TERM: 'dumb', CI: '1', NO_COLOR: '1' });

describe.runIf(DROID)('Factory Droid', () => {
  codeConformance({
    name: 'Factory Droid',
    adapter: droid,
    startApi: chatModelApi,
    env,
    async setup(home, project, api) {
      await mkdir(join(home, '.factory'), { recursive: true });
      await mkdir(project, { recursive: true });
      const model = { model: 'fake-model', displayName: 'Fake', baseUrl: `${api.url}/v1`, apiKey: 'sk-test', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 };
      await writeFile(join(home, '.factory', 'settings.json'), JSON.stringify({ customModels: [model] }));
    },
    async run(home, project, api, sessionId, prompt) {
      const args = ['exec', '-m', 'custom:Fake-0', '--auto', 'high', '-o', 'json', ...(sessionId ? ['-s', sessionId] : []), prompt];
      const r = await runCli(DROID!.cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`droid ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-1000)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { session_id: string; is_error?: boolean };
      if (out.is_error) throw new Error(`droid reported an error: ${r.stdout.slice(-1000)}`);
      return out.session_id;
    },
  });
});
