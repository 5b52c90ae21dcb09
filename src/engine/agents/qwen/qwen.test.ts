import { cp, mkdir, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { undoLatest } from '../../journal/undo.js';
import { adapterOfFile } from '../registry.js';
import { listQwenSessions, readQwenTimeline } from './discover.js';
import { qwenModel } from './parse.js';
import { rewindQwen } from './rewind.js';

const QWEN = join(FIXTURES, 'qwen-real');
const LINEAR = join(QWEN, 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl');
const BRANCH = join(QWEN, 'inplace-branch-ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl');
const NATIVE = join(QWEN, 'native-rewind', 'e217908e-90f9-463a-8526-e6d70c1a6d5c.jsonl');
const past = new Date(Date.now() - 3600_000);

const summary = async (path: string) => (await readQwenTimeline(path)).prompts.map((p) => `${p.active ? '' : `(dead ${p.lane}) `}${p.text}`);

async function qwenHome(src: string) {
  const root = join(await tempDir('qwen-home-'), '.qwen');
  const dir = join(root, 'projects', '-home-dev-projects-linear', 'chats');
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl');
  await cp(src, path);
  await utimes(path, past, past);
  return { root, dir, path, project: await tempDir('qwen-project-') };
}

describe('Qwen Code sessions: read', () => {
  it('a linear session: five live prompts with their tools; the file is recognised as Qwen', async () => {
    const t = await readQwenTimeline(LINEAR);
    expect(await summary(LINEAR)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt', 'EDIT notes.md alpha gamma', 'just chatting']);
    expect(t.session).toMatchObject({ agent: 'qwen', id: 'ee8dd990-90b0-403c-9263-0cdd0ce22216', cwd: '/home/dev/projects/linear', version: '0.24.4', model: 'fake-model' });
    expect(t.prompts[0]!.turn.toolCalls.map((c) => c.name)).toEqual(['read_file', 'write_file']);
    expect(t.prompts[0]!.turn.inputTokens).toBeGreaterThan(0);
    expect((await adapterOfFile(LINEAR)).id).toBe('qwen');
  });

  it("a native /rewind leaves the dropped turns as a dead branch, as Claude's are shown", async () => {
    expect(await summary(NATIVE)).toEqual(['WRITE a.txt version one', '(dead 1) WRITE a.txt version two', '(dead 1) WRITE b.txt bee', 'WRITE d.txt after native rewind']);
    const t = await readQwenTimeline(NATIVE);
    expect(t.branches).toHaveLength(1);
    expect(t.branches[0]!.afterPromptUuid).toBe(t.prompts[0]!.uuid);
    expect(t.stats).toMatchObject({ activePrompts: 2, deadPrompts: 2 });
  });

  it('an in-place branch (resume follows the last record): the abandoned prompts are dead', async () => {
    expect(await summary(BRANCH)).toEqual([
      'WRITE a.txt version one',
      'WRITE a.txt version two',
      '(dead 1) BASH echo bashmade > c.txt',
      '(dead 1) EDIT notes.md alpha gamma',
      '(dead 1) just chatting',
      '(dead 1) PROBE-zga02l084oq',
      'branch prompt',
      'PROBE-1rsbx7x5rtl',
    ]);
  });

  it('lists sessions under projects/*/chats', async () => {
    const env = await qwenHome(LINEAR);
    const list = await listQwenSessions({ root: env.root });
    expect(list.map((s) => [s.id, s.agent, s.promptCount])).toEqual([['ee8dd990-90b0-403c-9263-0cdd0ce22216', 'qwen', 5]]);
  });
});

describe('Qwen Code sessions: rewind', () => {
  it('fork of a branched file keeps only the chain a resume walks, under a new sessionId', async () => {
    const env = await qwenHome(BRANCH);
    const before = await readFile(env.path);
    const r = await rewindQwen({ transcriptPath: env.path, n: 1, mode: 'fork', projectRoot: env.project });
    expect(r.prompts.map((p) => p.text)).toEqual(['PROBE-1rsbx7x5rtl']);
    expect(r.droppedMessages).toBeGreaterThan(0);
    expect(await readFile(env.path)).toEqual(before);
    expect(await summary(r.forkPath!)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'branch prompt']);
    const m = qwenModel(await readFile(r.forkPath!));
    expect(m.records.every((x) => x.line.value!.sessionId === r.forkSessionId)).toBe(true);
    // Every kept record's parent is kept: the chain is whole from the last record to the root.
    expect(m.active.size).toBe(m.records.length);
  });

  it('a prompt on a dead branch can be the cut: the fork resumes where that branch began', async () => {
    const env = await qwenHome(BRANCH);
    const t = await readQwenTimeline(env.path);
    const dead = t.prompts.find((p) => p.text === 'EDIT notes.md alpha gamma')!;
    const r = await rewindQwen({ transcriptPath: env.path, promptUuid: dead.uuid, mode: 'fork', projectRoot: env.project });
    expect(r.prompts.map((p) => p.text)).toEqual(['EDIT notes.md alpha gamma', 'just chatting', 'PROBE-zga02l084oq']);
    expect(await summary(r.forkPath!)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt']);
  });

  it('in place: the same cut in the same file with the same id, a backup first; undo puts it back', async () => {
    const env = await qwenHome(LINEAR);
    const before = await readFile(env.path);
    const r = await rewindQwen({ transcriptPath: env.path, n: 2, mode: 'in-place', projectRoot: env.project });
    expect(await readFile(env.path)).toEqual(before.subarray(0, r.boundaryOffset));
    expect(await summary(env.path)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt']);
    expect(await readFile(r.backupPath!)).toEqual(before);
    await undoLatest(env.project, { agentRoots: [env.root] });
    expect(await readFile(env.path)).toEqual(before);
  });

  it('refuses to cut before the first prompt', async () => {
    const env = await qwenHome(LINEAR);
    await expect(rewindQwen({ transcriptPath: env.path, n: 5, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS' });
  });
});
