import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from 'vitest';
import { codex } from '../../src/engine/agents/codex/adapter.js';
import { codeConformance } from './agents/code-suite.js';
import { runCli } from './agents/npm-cli.js';
import { startCodexApi } from './codex-api.js';
import { codexHome, ensureCodex } from './codex-cli.js';
import { tempEnv } from '../temp.js';

/**
 * The pinned Codex CLI (codex-cli.ts) with Rewind's hooks (FORMATS.md §2c): Codex runs a hook only once trusted, so
 * the suite installs with `--trust` (which asks `codex app-server` for the hooks' keys and hashes).
 */
const found = ensureCodex();
if (!('bin' in found)) {
  if (process.platform === 'linux' && process.arch === 'x64') throw new Error(`the Codex conformance tier must run on linux-x64: ${found.skip}`);
  console.warn(`\n!! CODEX CONFORMANCE SKIPPED: ${found.skip}\n`);
}
const bin = 'bin' in found ? found.bin : '';

const codexDir = (home: string) => join(home, '.codex');
const env = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, ...tempEnv(), HOME: home, CODEX_HOME: codexDir(home), FAKE_OPENAI_KEY: 'sk-test', REWIND_CODEX_BIN: bin, TERM: 'dumb', NO_COLOR: '1' });

describe.runIf('bin' in found)('Codex CLI', () => {
  codeConformance({
    name: 'Codex CLI',
    adapter: codex,
    installArgs: ['--trust'],
    async startApi() {
      const api = await startCodexApi();
      return { url: api.url, histories: () => [], close: () => api.close() };
    },
    env: (home) => env(home),
    async setup(home, project, api) {
      await codexHome(codexDir(home), api.url);
      await mkdir(project, { recursive: true });
    },
    async run(home, project, _api, sessionId, prompt) {
      const flags = ['--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--json'];
      const args = sessionId ? ['exec', 'resume', ...flags, sessionId, prompt] : ['exec', ...flags, prompt];
      const r = await runCli([process.execPath, bin], args, { cwd: project, env: env(home) });
      if (r.code !== 0) throw new Error(`codex ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)}`);
      const started = r.stdout.split('\n').map((l) => /"thread_id":"([^"]+)"/.exec(l)?.[1]).find(Boolean);
      return sessionId ?? started!;
    },
  });
});
