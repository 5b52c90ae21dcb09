import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from 'vitest';
import { gemini } from '../../../src/engine/agents/gemini/adapter.js';
import { codeConformance } from './code-suite.js';
import { geminiModelApi } from './gemini-api.js';
import { GEMINI_CLI, ensureNpmCli, orSkip, runCli } from './npm-cli.js';
import type { ModelApi } from './suite.js';

/** Gemini CLI 0.61.0 with Rewind's hooks (FORMATS.md §2c): its prompt event names no prompt id. */
const GEMINI = orSkip('Gemini CLI', ensureNpmCli(GEMINI_CLI));

const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  GEMINI_API_KEY: 'test-key',
  GOOGLE_GEMINI_BASE_URL: api.url,
  GEMINI_CLI_TRUST_WORKSPACE: 'true',
  TERM: 'dumb',
  CI: '1',
  NO_COLOR: '1',
});

describe.runIf(GEMINI)('Gemini CLI', () => {
  codeConformance({
    name: 'Gemini CLI',
    adapter: gemini,
    startApi: geminiModelApi,
    env,
    async setup(home, project) {
      await mkdir(join(home, '.gemini'), { recursive: true });
      await mkdir(project, { recursive: true });
      await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
      // A resume in a later minute than the session file's name leaves a second file under the
      // same id, which the CLI's next start deletes (gemini.test.ts): record within one minute.
      const left = 60 - new Date().getSeconds();
      if (left < 40) await new Promise((r) => setTimeout(r, left * 1000 + 200));
    },
    async run(home, project, api, sessionId, prompt) {
      const args = ['-p', prompt, '--approval-mode', 'yolo', '-o', 'json', ...(sessionId ? ['--resume', sessionId] : [])];
      const r = await runCli(GEMINI!.cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`gemini ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-500)}`);
      if (sessionId) return sessionId;
      const out = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { session_id?: string };
      if (!out.session_id) throw new Error(`gemini printed no session_id: ${r.stdout.slice(0, 500)}`);
      return out.session_id;
    },
  });
});
