import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from 'vitest';
import { gemini } from '../../../src/engine/agents/gemini/adapter.js';
import { geminiModelApi } from './gemini-api.js';
import { ensureNpmCli, orSkip, runCli } from './npm-cli.js';
import { agentConformance, type ModelApi } from './suite.js';

/** Gemini CLI 0.61.0 as the judge (FORMATS.md §2b): an API key and a local Gemini API. */
const GEMINI = orSkip(
  'Gemini CLI',
  ensureNpmCli({ dir: 'gemini-cli-0.61.0', packages: ['@google/gemini-cli@0.61.0'], bin: join('node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'), node: true, version: '0.61.0' }),
);

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
  agentConformance({
    name: 'Gemini CLI',
    adapter: gemini,
    startApi: geminiModelApi,
    env,
    async setup(home, project) {
      await mkdir(join(home, '.gemini'), { recursive: true });
      await mkdir(project, { recursive: true });
      await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    },
    async run(home, project, api, sessionId, prompt) {
      const args = ['-p', prompt, '--approval-mode', 'yolo', '-o', 'json', ...(sessionId ? ['--resume', sessionId] : [])];
      const r = await runCli(GEMINI!.cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`gemini ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-500)}`);
      const out = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { session_id?: string };
      if (sessionId) return sessionId;
      if (!out.session_id) throw new Error(`gemini printed no session_id: ${r.stdout.slice(0, 500)}`);
      return out.session_id;
    },
    prompts: ['WRITE a.txt version one', 'WRITE b.txt bee', 'BASH echo bashmade > c.txt', 'just chatting'],
    tools: [['write_file'], ['write_file'], ['run_shell_command'], []],
    // Found with this suite: every resume repeats the last function response in the history sent
    // (an untouched session does it too), and resuming a fork once made the original's files vanish.
    readOnly: 'Rewind does not write Gemini sessions until the real CLI confirms its forks and rewrites',
  });
});
