import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gemini } from '../../../src/engine/agents/gemini/adapter.js';
import { ensureCliBuilt, rewindApp } from '../harness.js';
import { fieldOf, hitsOf, promptsOf } from '../mcp-results.js';
import { geminiModelApi, type GenRequest } from './gemini-api.js';
import { GEMINI_CLI, ensureNpmCli, orSkip, runCli } from './npm-cli.js';
import { tempEnv } from '../../temp.js';

/**
 * Gemini CLI 0.61.0 as a third MCP client: `rewind-app mcp install --agent gemini` merges the
 * server into its settings.json (beside its auth settings), and the scripted model calls Rewind's
 * tools through it.
 */
const GEMINI = orSkip('Gemini CLI', ensureNpmCli(GEMINI_CLI));

let api: Awaited<ReturnType<typeof geminiModelApi>>;
let home: string;
let project: string;
let id: string;

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, ...tempEnv(), HOME: home, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_CLI_TRUST_WORKSPACE: 'true', TERM: 'dumb', CI: '1', NO_COLOR: '1' });

async function geminiRun(prompt: string, resume: string | null): Promise<string> {
  const args = ['-p', prompt, '--approval-mode', 'yolo', '-o', 'json', ...(resume ? ['--resume', resume] : [])];
  const r = await runCli(GEMINI!.cmd, args, { cwd: project, env: env() });
  if (r.code !== 0) throw new Error(`gemini ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-500)}`);
  return (JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { session_id?: string }).session_id ?? '';
}

/** Each function response Gemini sent its model in the last request, as text. */
function responses(req: GenRequest): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const c of req.contents ?? []) {
    for (const p of c.parts ?? []) {
      const f = p.functionResponse as { name?: string; response?: unknown } | undefined;
      if (!f) continue;
      const r = f.response as { output?: unknown; content?: unknown } | undefined;
      const text = typeof r?.output === 'string' ? r.output : JSON.stringify(r);
      out.push({ name: f.name ?? '?', text });
    }
  }
  return out;
}

describe.runIf(GEMINI)('Gemini CLI calls rewind-app mcp', () => {
  beforeAll(async () => {
    ensureCliBuilt();
    api = await geminiModelApi();
    home = await mkdtemp(join(tmpdir(), 'gemini-mcp-conf-'));
    project = join(home, 'proj');
    await mkdir(join(home, '.gemini'), { recursive: true });
    await mkdir(project, { recursive: true });
    await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
    // Two prompts inside one minute (a later minute's resume leaves a second file: gemini.test.ts).
    const left = 60 - new Date().getSeconds();
    if (left < 30) await new Promise((r) => setTimeout(r, left * 1000 + 200));
    id = await geminiRun('WRITE a.txt version one', null);
    await geminiRun('BASH echo bashmade > c.txt', id);
    const r = rewindApp(['mcp', 'install', '--agent', 'gemini'], { HOME: home });
    expect(r.code, r.stderr).toBe(0);
    // Merged beside the auth settings, not over them.
    expect(JSON.parse(await readFile(join(home, '.gemini', 'settings.json'), 'utf8'))).toMatchObject({ security: { auth: { selectedType: 'gemini-api-key' } }, mcpServers: { rewind: { args: [expect.stringMatching(/rewind-app\.mjs$/), 'mcp'] } } });
  });
  afterAll(async () => {
    await api?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('search then timeline: the responses Gemini hands its model hold the hits and the prompts', async () => {
    const path = (await gemini.find(id, gemini.root(env())))!;
    const t = await gemini.timeline(path);
    await geminiRun(`CALL mcp__rewind__search {"query":"bashmade","agent":"gemini"} THEN mcp__rewind__timeline {"session":"${id}"}`, null);
    const got = responses(api.chats[api.chats.length - 1]!);
    expect(got.map((g) => g.name.replace(/^.*?(search|timeline)$/, '$1'))).toEqual(['search', 'timeline']);
    const bash = t.prompts.find((p) => p.text === 'BASH echo bashmade > c.txt')!;
    expect(hitsOf(got[0]!.text).map((h) => [h.sessionId, h.promptUuid, h.snippet])).toContainEqual([id, bash.uuid, 'BASH echo bashmade > c.txt']);
    expect(promptsOf(got[1]!.text)).toEqual(t.prompts.map((p) => ({ number: p.number, uuid: p.uuid, text: p.text })));
  });

  it('with writes off, rewind is refused with a clear reason and nothing is written', async () => {
    const sessions = async () => (await gemini.sessionFiles(gemini.root(env()))).length;
    const before = await sessions();
    const args = `"session":"${id}","prompt":"#2","mode":"fork"`;
    await geminiRun(`CALL mcp__rewind__preview_rewind {${args}} THEN mcp__rewind__rewind {${args},"token":"$token"}`, null);
    const got = responses(api.chats[api.chats.length - 1]!);
    expect(got).toHaveLength(2);
    expect(fieldOf(got[0]!.text, 'token')).toMatch(/^[0-9a-f]{24}$/);
    expect(got[1]!.text).toMatch(/Writes are off: .*--allow-writes/);
    // Only the session that called the tools is new: no fork.
    expect(await sessions()).toBe(before + 1);
  });
});
