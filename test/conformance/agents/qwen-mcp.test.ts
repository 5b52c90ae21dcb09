import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qwen } from '../../../src/engine/agents/qwen/adapter.js';
import { ensureCliBuilt, rewindApp } from '../harness.js';
import { fieldOf, hitsOf, promptsOf } from '../mcp-results.js';
import { chatHistory, contentText, startChatApi, type ChatApi } from './chat-api.js';
import { QWEN_CLI, ensureNpmCli, orSkip, qwenEnv, runCli } from './npm-cli.js';

/**
 * Qwen Code 0.24.4 as a second MCP client: `rewind-app mcp install --agent qwen` registers the
 * server in its settings.json, and the scripted model calls Rewind's tools through it.
 */
const QWEN = orSkip('Qwen Code', ensureNpmCli(QWEN_CLI));

let api: ChatApi;
let home: string;
let project: string;
let id: string;
const firstSent: string[][] = [];
const PROMPTS = ['WRITE a.txt version one', 'BASH echo bashmade > c.txt', 'WRITE b.txt bee'];

const env = (): NodeJS.ProcessEnv => qwenEnv(home, api.url);

async function chats(): Promise<string[]> {
  const dir = join(home, '.qwen', 'projects');
  const out: string[] = [];
  for (const p of await readdir(dir).catch(() => [])) for (const f of await readdir(join(dir, p, 'chats')).catch(() => [])) out.push(f.replace(/\.jsonl$/, ''));
  return out;
}

async function qwenRun(prompt: string, resume: string | null): Promise<void> {
  const args = [prompt, '--approval-mode', 'yolo', '-o', 'json', ...(resume ? ['--resume', resume] : [])];
  const r = await runCli(QWEN!.cmd, args, { cwd: project, env: env() });
  if (r.code !== 0) throw new Error(`qwen ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)}`);
}

/** Runs a prompt in a new session and returns each tool's result as the model got it. */
async function withRewind(prompt: string): Promise<{ tool: string; text: string }[]> {
  const from = api.requests.length;
  await qwenRun(prompt, null);
  const last = api.requests[api.requests.length - 1]!;
  expect(api.requests.length, 'the model was asked again after each tool').toBeGreaterThan(from);
  const names = new Map<string, string>();
  const out: { tool: string; text: string }[] = [];
  for (const m of last.messages ?? []) {
    for (const c of (m as { tool_calls?: { id?: string; function?: { name?: string } }[] }).tool_calls ?? []) names.set(c.id ?? '', c.function?.name ?? '?');
    if (m.role === 'tool') out.push({ tool: names.get(m.tool_call_id ?? '') ?? '?', text: contentText(m.content) });
  }
  return out;
}

const install = (...flags: string[]) => {
  const r = rewindApp(['mcp', 'install', '--agent', 'qwen', ...flags], { HOME: home });
  expect(r.code, r.stderr).toBe(0);
};

describe.runIf(QWEN)('Qwen Code calls rewind-app mcp', () => {
  beforeAll(async () => {
    ensureCliBuilt();
    api = await startChatApi();
    home = await mkdtemp(join(tmpdir(), 'qwen-mcp-conf-'));
    project = join(home, 'proj');
    await mkdir(project, { recursive: true });
    for (const p of PROMPTS) {
      const before = api.requests.length;
      await qwenRun(p, id ?? null);
      id ??= (await chats())[0]!;
      const h = api.requests.slice(before).map(chatHistory).find((x) => x[x.length - 1] === `user: ${p}`);
      firstSent.push(h!);
    }
  });
  afterAll(async () => {
    await api?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('search then timeline: the results Qwen hands its model hold the hits and the prompts', async () => {
    install();
    const path = (await qwen.find(id, qwen.root(env())))!;
    const t = await qwen.timeline(path);
    const results = await withRewind(`CALL mcp__rewind__search {"query":"bashmade","agent":"qwen"} THEN mcp__rewind__timeline {"session":"${id}"}`);
    expect(results.map((r) => r.tool.replace(/^.*?(search|timeline)$/, '$1'))).toEqual(['search', 'timeline']);
    const bash = t.prompts.find((p) => p.text === 'BASH echo bashmade > c.txt')!;
    expect(hitsOf(results[0]!.text).map((h) => [h.sessionId, h.promptUuid, h.snippet])).toContainEqual([id, bash.uuid, 'BASH echo bashmade > c.txt']);
    expect(promptsOf(results[1]!.text)).toEqual(t.prompts.map((p) => ({ number: p.number, uuid: p.uuid, text: p.text })));
  });

  it('with writes off, rewind is refused with a clear reason', async () => {
    install();
    const args = `"session":"${id}","prompt":"#2","mode":"fork"`;
    const before = await chats();
    const results = await withRewind(`CALL mcp__rewind__preview_rewind {${args}} THEN mcp__rewind__rewind {${args},"token":"$token"}`);
    expect(results).toHaveLength(2);
    expect(fieldOf(results[0]!.text, 'token')).toMatch(/^[0-9a-f]{24}$/);
    expect(results[1]!.text).toMatch(/Writes are off: .*--allow-writes/);
    // Only the session that called the tools is new: no fork.
    expect((await chats()).filter((c) => !before.includes(c))).toHaveLength(1);
  });

  it('preview_rewind then rewind (writes allowed): Qwen resumes the fork with exactly the kept prompts', async () => {
    install('--allow-writes');
    expect(await readFile(join(home, '.qwen', 'settings.json'), 'utf8')).toContain('--allow-writes');
    const args = `"session":"${id}","prompt":"#2","mode":"fork"`;
    const results = await withRewind(`CALL mcp__rewind__preview_rewind {${args}} THEN mcp__rewind__rewind {${args},"token":"$token"}`);
    const fork = fieldOf(results[1]!.text, 'forkSessionId');
    expect(fork, results[1]!.text).toMatch(/^[0-9a-f-]{36}$/);
    const from = api.requests.length;
    await qwenRun('RESUMED probe', fork!);
    const resumed = api.requests.slice(from).map(chatHistory).find((x) => x[x.length - 1] === 'user: RESUMED probe')!;
    const expected = firstSent[1]!.slice(0, firstSent[1]!.lastIndexOf(`user: ${PROMPTS[1]}`));
    expect(expected).toEqual(['user: WRITE a.txt version one', 'call: write_file', 'tool: result', 'assistant: OK: [tool_result]']);
    expect(resumed.slice(0, -1)).toEqual(expected);
    expect(dirname((await qwen.find(fork!, qwen.root(env())))!)).toBe(dirname((await qwen.find(id, qwen.root(env())))!));
  });
});
