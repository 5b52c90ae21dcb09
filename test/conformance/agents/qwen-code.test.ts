import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from 'vitest';
import { qwen } from '../../../src/engine/agents/qwen/adapter.js';
import { chatModelApi } from './chat-model.js';
import { codeConformance } from './code-suite.js';
import { QWEN_CLI, ensureNpmCli, orSkip, runCli } from './npm-cli.js';
import type { ModelApi } from './suite.js';

/** Qwen Code 0.24.4 with Rewind's hooks (FORMATS.md §2c): every prompt a `qwen "P" --resume ID` run. */
const QWEN = orSkip('Qwen Code', ensureNpmCli(QWEN_CLI));

const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  OPENAI_BASE_URL: `${api.url}/v1`,
  OPENAI_API_KEY: 'sk-test',
  OPENAI_MODEL: 'fake-model',
  QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  TERM: 'dumb',
  CI: '1',
  NO_COLOR: '1',
});

async function chats(home: string): Promise<string[]> {
  const dir = join(home, '.qwen', 'projects');
  const out: string[] = [];
  for (const p of await readdir(dir).catch(() => [])) for (const f of await readdir(join(dir, p, 'chats')).catch(() => [])) out.push(f.replace(/\.jsonl$/, ''));
  return out;
}

describe.runIf(QWEN)('Qwen Code', () => {
  codeConformance({
    name: 'Qwen Code',
    adapter: qwen,
    absolutePaths: true,
    // Qwen will not overwrite a file the session has not read: the edit is a shell one.
    editPrompt: 'BASH echo version two > a.txt',
    startApi: chatModelApi,
    env,
    async setup(_home, project) {
      await mkdir(project, { recursive: true });
    },
    async run(home, project, api, sessionId, prompt) {
      const known = new Set(await chats(home));
      const args = [prompt, '--approval-mode', 'yolo', '-o', 'json', ...(sessionId ? ['--resume', sessionId] : [])];
      const r = await runCli(QWEN!.cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`qwen ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)}`);
      if (sessionId) return sessionId;
      const fresh = (await chats(home)).filter((x) => !known.has(x));
      if (fresh.length !== 1) throw new Error(`expected one new Qwen session, found ${fresh.length}`);
      return fresh[0]!;
    },
  });
});
