import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTranscriptFile } from '../../src/engine/agents/claude/parse-transcript.js';
import { toTimeline } from '../../src/engine/agents/claude/timeline.js';
import { runClaude } from './claude-cli.js';
import { CLI, claudeOrSkip, copySession, ensureCliBuilt, withApi } from './harness.js';
import { SCENARIOS, resumedHistory, runScenario, type Scenario } from './scenario.js';
import { textOf, type ApiMessage, type ScriptedApi } from './scripted-api.js';
import { fieldOf, hitsOf, promptsOf, structured } from './mcp-results.js';
import { tempEnv } from '../temp.js';

/**
 * The real Claude Code CLI as an MCP client of `rewind-app mcp`: the scripted model calls Rewind's
 * tools, and the judge is what Claude hands back to the model and what it resumes afterwards.
 */
const claude = claudeOrSkip();
const run = 'bin' in claude;
let api: ScriptedApi;
let sc: Scenario;
let caller: string;

const TOOLS = ['search', 'timeline', 'turn', 'list_sessions', 'preview_rewind', 'rewind'].map((t) => `mcp__rewind__${t}`);

/** Runs Claude in its own folder with the Rewind MCP server registered as `rewind` (writes as asked). */
async function withRewind(prompt: string, allowWrites: boolean): Promise<{ results: { tool: string; text: string; isError: boolean }[]; stdout: string }> {
  const config = join(caller, `mcp-${allowWrites ? 'rw' : 'ro'}.json`);
  const env = { HOME: sc.env.home, CLAUDE_CONFIG_DIR: sc.env.configDir, PATH: process.env.PATH ?? '', ...tempEnv() };
  await writeFile(config, JSON.stringify({ mcpServers: { rewind: { type: 'stdio', command: process.execPath, args: [CLI, 'mcp', ...(allowWrites ? ['--allow-writes'] : [])], env } } }));
  const from = api.requests.length;
  const r = await runClaude(sc.env, caller, ['-p', prompt, '--mcp-config', config, '--strict-mcp-config', '--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', TOOLS.join(' ')]);
  expect(r.code, r.stderr || r.stdout).toBe(0);
  // Each tool result Claude sent back to the model, paired with its call.
  const calls = new Map<string, string>();
  const results: { tool: string; text: string; isError: boolean }[] = [];
  const seen = new Set<string>();
  for (const req of api.requests.slice(from)) {
    for (const m of (req.body.messages ?? []) as ApiMessage[]) {
      if (typeof m.content === 'string') continue;
      for (const b of m.content) {
        if (b.type === 'tool_use') calls.set(String(b.id), String(b.name));
        if (b.type === 'tool_result' && !seen.has(String(b.tool_use_id))) {
          seen.add(String(b.tool_use_id));
          const text = typeof b.content === 'string' ? b.content : textOf(b.content as never);
          results.push({ tool: calls.get(String(b.tool_use_id)) ?? '?', text, isError: !!b.is_error });
        }
      }
    }
  }
  return { results, stdout: r.stdout };
}

describe.runIf(run)('the real Claude Code CLI calls rewind-app mcp', () => {
  beforeAll(async () => {
    if (!('bin' in claude)) return;
    ensureCliBuilt();
    api = await withApi();
    sc = await runScenario(SCENARIOS.linear!, { bin: claude.bin, apiUrl: api.url }, api);
    caller = await mkdtemp(join(tmpdir(), 'rewind-conf-mcp-caller-'));
    await mkdir(caller, { recursive: true });
  });
  afterAll(async () => {
    await api?.close();
    if (caller) await rm(caller, { recursive: true, force: true });
  });

  it('search then timeline: the tool results Claude sends the model hold the hits and the prompts', async () => {
    const t = toTimeline(await parseTranscriptFile(sc.transcript));
    const bee = t.prompts.find((p) => p.text === 'WRITE b.txt bee')!;
    const { results } = await withRewind(`CALL mcp__rewind__search {"query":"bashmade"} THEN mcp__rewind__timeline {"session":"${sc.sessionId.slice(0, 8)}"}`, false);
    expect(results.map((r) => r.tool)).toEqual(['mcp__rewind__search', 'mcp__rewind__timeline']);
    const [search, timeline] = results as [(typeof results)[0], (typeof results)[0]];
    expect(search.isError, search.text).toBe(false);
    const bash = t.prompts.find((p) => p.text.includes('bashmade'))!;
    expect(hitsOf(search.text)).toContainEqual({ sessionId: sc.sessionId, promptUuid: bash.uuid, snippet: 'BASH echo bashmade > c.txt', ...(structured(search.text) ? { transcriptPath: sc.transcript, highlights: [[10, 18]] } : {}) });
    expect(timeline.isError, timeline.text).toBe(false);
    expect(promptsOf(timeline.text)).toEqual(t.prompts.map((p) => ({ number: p.number, uuid: p.uuid, text: p.text })));
    expect(promptsOf(timeline.text).find((p) => p.uuid === bee.uuid)?.number).toBe(5);
  });

  it('preview_rewind then rewind (writes allowed): the real CLI resumes the fork with exactly the kept prompts', async () => {
    const copy = await copySession(sc.transcript);
    const args = `"session":"${copy.id}","prompt":"#3","mode":"fork"`;
    const { results } = await withRewind(`CALL mcp__rewind__preview_rewind {${args}} THEN mcp__rewind__rewind {${args},"token":"$token"}`, true);
    expect(results.map((r) => r.tool)).toEqual(['mcp__rewind__preview_rewind', 'mcp__rewind__rewind']);
    expect(fieldOf(results[0]!.text, 'token')).toMatch(/^[0-9a-f]{24}$/);
    const applied = results[1]!;
    expect(applied.isError, applied.text).toBe(false);
    const fork = fieldOf(applied.text, 'forkSessionId')!;
    expect(fork).toMatch(/^[0-9a-f-]{36}$/);
    // What the model saw when prompt #3 was first sent, minus that prompt: #1 and #2 with their turns.
    const third = sc.steps[2]!;
    const expected = third.history!.slice(0, third.history!.lastIndexOf(`user: ${third.prompt}`));
    const history = await resumedHistory(sc, fork);
    expect(history).toEqual(expected);
    expect(history.filter((l) => l.startsWith('user: '))).toEqual(['user: WRITE a.txt version one', 'user: WRITE a.txt version two']);
  });

  it('with writes off, rewind is refused with a clear reason and nothing is written', async () => {
    const copy = await copySession(sc.transcript);
    const sessions = async () => (await readdir(dirname(sc.transcript))).sort();
    const before = await sessions();
    const args = `"session":"${copy.id}","prompt":"#2","mode":"fork"`;
    const { results } = await withRewind(`CALL mcp__rewind__preview_rewind {${args}} THEN mcp__rewind__rewind {${args},"token":"$token"}`, false);
    expect(results.map((r) => r.tool)).toEqual(['mcp__rewind__preview_rewind', 'mcp__rewind__rewind']);
    expect(results[0]!.isError, results[0]!.text).toBe(false);
    const refused = results[1]!;
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/Writes are off: .*--allow-writes/);
    expect(refused.text).not.toMatch(/forkSessionId/);
    expect(await sessions()).toEqual(before);
  });
});
