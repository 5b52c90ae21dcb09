import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe } from 'vitest';
import { qwen } from '../../../src/engine/agents/qwen/adapter.js';
import { chatModelApi } from './chat-model.js';
import { QWEN_CLI, ensureNpmCli, orSkip, qwenEnv, runCli } from './npm-cli.js';
import { agentConformance, type ModelApi } from './suite.js';

/** Qwen Code 0.24.4 as the judge (FORMATS.md §2b): an OpenAI-compatible model from env. */
const QWEN = orSkip(
  'Qwen Code',
  ensureNpmCli(QWEN_CLI),
);

const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => qwenEnv(home, api.url);

describe.runIf(QWEN)('Qwen Code', () => {
  agentConformance({
    name: 'Qwen Code',
    adapter: qwen,
    startApi: chatModelApi,
    env,
    async setup(_home, project) {
      await mkdir(project, { recursive: true });
    },
    async run(home, project, api, sessionId, prompt) {
      const chats = async () => {
        const dir = join(home, '.qwen', 'projects');
        const out: string[] = [];
        for (const p of await readdir(dir).catch(() => [])) for (const f of await readdir(join(dir, p, 'chats')).catch(() => [])) out.push(f.replace(/\.jsonl$/, ''));
        return out;
      };
      const known = new Set(await chats());
      const args = [prompt, '--approval-mode', 'yolo', '-o', 'json', ...(sessionId ? ['--resume', sessionId] : [])];
      const r = await runCli(QWEN!.cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`qwen ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)}`);
      if (sessionId) return sessionId;
      const fresh = (await chats()).filter((x) => !known.has(x));
      if (fresh.length !== 1) throw new Error(`expected one new Qwen session, found ${fresh.length}`);
      return fresh[0]!;
    },
    prompts: ['WRITE a.txt version one', 'WRITE b.txt bee', 'BASH echo bashmade > c.txt', 'just chatting'],
    tools: [['write_file'], ['write_file'], ['run_shell_command'], []],
  });
});
