import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { codex } from './adapter.js';
import { findCodexSession, listCodexSessions } from './discover.js';
import { parseRollout } from './rollout.js';

/** Sessions the real Codex CLI 0.169.0 wrote (FORMATS.md §2): linear, two forks, a revert, compactions. */
const HOME = join(FIXTURES, 'codex-0.169');
const DAY = join(HOME, 'sessions', '2026', '11', '23');
const LINEAR = '01a20831-0a9b-7362-9657-fdd051b67f43';
const CLI_FORK = '01a20831-11bb-7340-9529-b9aa4517f45d';
const RPC_FORK = '01a20831-139a-7673-bbc8-99f840ec37ff';
const REVERTED = '01a20831-1b9e-7022-895f-ab9622012353';
const COMPACTED = '01a20831-28f2-7353-b880-3f2eae8a98c5';
const LINEAR_PROMPTS = ['WRITE notes/a.txt alpha-one', 'WRITE b.txt beta-two', 'BASH echo gamma-three >> notes/a.txt', 'plain question four'];

async function home(): Promise<string> {
  const to = await tempDir('rewind-codex169-');
  await cp(HOME, to, { recursive: true });
  return to;
}

describe('Codex CLI 0.169 rollouts', () => {
  it('prompts come from the history items (0.169 logs no user_message events); injected context is not a prompt', async () => {
    const t = await parseRollout(join(DAY, `rollout-2026-11-23T11-36-01-${LINEAR}.jsonl`));
    expect(t.prompts.map((p) => p.text)).toEqual(LINEAR_PROMPTS);
    expect(t.session).toMatchObject({ id: LINEAR, version: '0.169.0', cwd: '/home/dev/projects/demo' });
    expect(t.prompts[0]!.turn.toolCalls.map((c) => c.name)).toEqual(['exec_command']);
    expect(t.prompts.map((p) => p.turn.inputTokens)).toEqual([2000, 2000, 2000, 1000]);
    expect(t.prompts.every((p) => p.turn.durationMs !== null)).toBe(true);
    // A prompt's turn starts at its task_started: the line a fork cuts before.
    expect(t.prompts[0]!.byteOffset).toBeLessThan(Number(t.prompts[0]!.uuid.slice('codex:'.length)));
    expect(t.issues).toEqual([]);
  });

  it('reference forks show the prefix they read from their parent; a revert shows the prompts its generation kept', async () => {
    const list = await listCodexSessions({ home: await home() });
    const byId = new Map(list.map((s) => [s.id, s]));
    // One entry per thread: the reverted thread's older file is not listed again.
    expect(list.map((s) => s.id).sort()).toEqual([LINEAR, CLI_FORK, RPC_FORK, REVERTED, COMPACTED].sort());
    expect(byId.get(CLI_FORK)).toMatchObject({ promptCount: 5, forkOf: LINEAR, firstPrompt: LINEAR_PROMPTS[0] });
    expect(byId.get(RPC_FORK)).toMatchObject({ promptCount: 3, forkOf: LINEAR });
    expect(byId.get(REVERTED)).toMatchObject({ promptCount: 3, forkOf: null });
    expect(byId.get(REVERTED)!.transcriptPath).toMatch(/_01a20831-2162-7e00-8102-69e9cb0203e7\.jsonl$/);
    const fork = await parseRollout(byId.get(RPC_FORK)!.transcriptPath);
    expect(fork.prompts.map((p) => p.text)).toEqual([...LINEAR_PROMPTS.slice(0, 2), 'after rpc fork']);
    const reverted = await parseRollout(byId.get(REVERTED)!.transcriptPath);
    expect(reverted.prompts.map((p) => p.text)).toEqual(['WRITE r1.txt rev-one', 'WRITE r2.txt rev-two', 'after revert']);
    // An inherited prompt's turn is read from the parent's lines.
    const turn = await codex.turn(fork.session.transcriptPath, fork.prompts[0]!.uuid);
    // Its call carries its own output (paired by call id), and the turn names its model.
    expect(turn.items.map((i) => i.kind)).toEqual(['tool-call', 'text']);
    expect(turn.items[0]!.tool?.result).not.toBeNull();
    expect(turn.model).toEqual(expect.any(String));
  });

  it('finds a reverted thread by its id at its current generation', async () => {
    const h = await home();
    expect(await findCodexSession(REVERTED, h)).toMatch(/_01a20831-2162-7e00-8102-69e9cb0203e7\.jsonl$/);
    expect(await findCodexSession(REVERTED.slice(0, 13), h)).toMatch(/_01a20831-2162/);
  });

  it('compactions (automatic and manual) sit between the prompts they followed', async () => {
    const t = await parseRollout(join(DAY, `rollout-2026-11-23T11-36-09-${COMPACTED}.jsonl`));
    expect(t.prompts.map((p) => p.text)).toEqual(['WRITE c1.txt comp-one', 'BIGUSAGE comp-two', 'plain comp three', 'plain comp four']);
    expect(t.compactions.map((c) => t.prompts.findIndex((p) => p.uuid === c.afterPromptUuid))).toEqual([1, 2]);
  });

  it('search names a prompt as the timeline does', async () => {
    const { searchPromptLines } = await import('../../prompts/search.js');
    const h = await home();
    const r = await searchPromptLines(await codex.sessionFiles(h), 'gamma-three', codex.promptLines, { maxBytes: 1e9, maxMatches: 10, perSession: 3 });
    const linear = r.matches.find((m) => m.sessionId === LINEAR)!;
    const t = await parseRollout(linear.transcriptPath);
    expect(t.prompts.find((p) => p.uuid === linear.promptUuid)?.text).toBe(LINEAR_PROMPTS[2]);
  });
});
