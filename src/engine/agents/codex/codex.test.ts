import { copyFile, cp, mkdir, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODEX_SYNTHETIC, FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { agentOfFile } from '../../sessions/files.js';
import { findCodexSession, listCodexSessions } from './discover.js';
import { parseRollout } from './rollout.js';

const REAL_CLI = join(FIXTURES, 'public', 'codex-0.77.0-real-cli-head.jsonl');
const REAL_EXEC = join(FIXTURES, 'public', 'codex-0.135.0-real-exec-redacted.jsonl');

/** A copy under a new path: the in-process cache of full reads is keyed by path. */
async function copyHome(home: string): Promise<string> {
  const to = await tempDir('rewind-codex-copy-');
  await cp(home, to, { recursive: true, preserveTimestamps: true });
  return to;
}

describe('Codex rollouts', () => {
  it('a prompt is a user_message event; injected context (AGENTS.md, environment) is not', async () => {
    const t = await parseRollout(REAL_CLI);
    expect(t.session).toMatchObject({ id: '019b64e5-57fa-7463-b644-fba7e456f905', agent: 'codex', version: '0.77.0', cwd: '/Users/macmini/Code/homelab-migration' });
    expect(t.prompts).toHaveLength(1);
    expect(t.prompts[0]!.text).toMatch(/^can you analyse the MD files/);
    expect(t.issues).toEqual([]);
  });

  it('a turn counts tool calls, patched files, tokens and duration; unknown line types are skipped', async () => {
    const t = await parseRollout(CODEX_SYNTHETIC);
    expect(t.prompts[0]!.turn.toolCalls.map((c) => c.name)).toEqual(['exec_command', 'apply_patch', 'mcp__synthetic__lookup']);
    expect(t.prompts[0]!.turn.toolCalls[0]!.summary).toBe('find . -maxdepth 1 -type f');
    expect(t.prompts[0]!.turn.filesTouched).toEqual(['gamma.txt']);
    expect(t.issues).toEqual([]);
    const exec = await parseRollout(REAL_EXEC);
    expect(exec.prompts[0]!.turn).toMatchObject({ inputTokens: 22539, outputTokens: 10, durationMs: 6074, assistantMessages: 1 });
  });

  it('is told apart from a Claude transcript by its first line, however long', async () => {
    expect(await agentOfFile(CODEX_SYNTHETIC)).toBe('codex');
    // A session_meta carrying the model's whole instructions: far past the first 64 KiB.
    const home = await tempDir('rewind-codex-long-');
    const long = join(home, 'sessions', '2026', '01', '04', 'rollout-2026-01-04T00-00-00-33333333-3333-4333-8333-333333333333.jsonl');
    await mkdir(dirname(long), { recursive: true });
    const meta = { timestamp: '2026-01-04T00:00:00.000Z', type: 'session_meta', payload: { id: '33333333-3333-4333-8333-333333333333', cwd: '/w', cli_version: '0.169.0', base_instructions: { text: 'x'.repeat(300_000) } } };
    const prompt = { timestamp: '2026-01-04T00:00:01.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'after long instructions' } };
    await writeFile(long, `${JSON.stringify(meta)}\n${JSON.stringify(prompt)}\n`);
    expect(await agentOfFile(long)).toBe('codex');
    expect((await listCodexSessions({ home, countBudgetBytes: 0 })).map((x) => [x.id, x.title])).toEqual([['33333333-3333-4333-8333-333333333333', 'after long instructions']]);
    expect(await agentOfFile(join(FIXTURES, 'public', 'claude-1.0.108-real-inline-sidechains.jsonl'))).toBe('claude');
  });

  it('discovery: under sessions/YYYY/MM/DD, titled by session_index, forks named, newest first', async () => {
    const home = await tempDir('rewind-codex-home-');
    const a = join(home, 'sessions', '2026', '01', '02', 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
    const b = join(home, 'sessions', '2026', '01', '03', 'rollout-2026-01-03T03-04-05-22222222-2222-4222-8222-222222222222.jsonl');
    await mkdir(dirname(a), { recursive: true });
    await mkdir(dirname(b), { recursive: true });
    await copyFile(CODEX_SYNTHETIC, a);
    const meta = { timestamp: '2026-01-03T03:04:05.000Z', type: 'session_meta', payload: { id: '22222222-2222-4222-8222-222222222222', cwd: '/workspace/other', cli_version: '0.169.0', forked_from_id: '11111111-1111-4111-8111-111111111111' } };
    const prompt = { timestamp: '2026-01-03T03:04:06.000Z', type: 'event_msg', payload: { type: 'user_message', message: 'try it another way' } };
    await writeFile(b, `${JSON.stringify(meta)}\n${JSON.stringify(prompt)}\n`);
    await utimes(a, new Date('2026-01-02T04:00:00Z'), new Date('2026-01-02T04:00:00Z'));
    await utimes(b, new Date('2026-01-03T04:00:00Z'), new Date('2026-01-03T04:00:00Z'));
    await writeFile(join(home, 'session_index.jsonl'), ['{"id":"11111111-1111-4111-8111-111111111111","thread_name":"old name"}', '{"id":"11111111-1111-4111-8111-111111111111","thread_name":"synthetic files"}', 'torn{'].join('\n'));
    const list = await listCodexSessions({ home });
    expect(list.map((s) => [s.id, s.title, s.promptCount, s.forkOf, s.agent])).toEqual([
      ['22222222-2222-4222-8222-222222222222', 'try it another way', 1, '11111111-1111-4111-8111-111111111111', 'codex'],
      ['11111111-1111-4111-8111-111111111111', 'synthetic files', 1, null, 'codex'],
    ]);
    expect(await listCodexSessions({ home, project: '/workspace/other' })).toHaveLength(1);
    // Past the byte budget a rollout is listed from its head alone: named, its prompts not counted.
    const cheap = await listCodexSessions({ home: await copyHome(home), countBudgetBytes: 0 });
    expect(cheap.map((s) => [s.title, s.promptCount])).toEqual([
      ['try it another way', null],
      ['synthetic files', null],
    ]);
    expect(await findCodexSession('2222', home)).toBe(b);
    expect(await findCodexSession('3333', home)).toBeNull();
    expect(await listCodexSessions({ home: join(home, 'missing') })).toEqual([]);
  });
});
