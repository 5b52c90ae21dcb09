import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRANCHED, FIXTURES, LINEAR, SUBAGENT, allFixtureTranscripts, tempDir } from '../../../../test/fixtures.js';
import { readLines } from '../../io/read-lines.js';
import { parseTranscriptFile } from './parse-transcript.js';
import { SessionBuilder } from './session-builder.js';
import { toTimeline } from './timeline.js';

async function timelineOf(path: string) {
  return toTimeline(await parseTranscriptFile(path));
}

const promptSummary = (t: Awaited<ReturnType<typeof timelineOf>>) => t.prompts.map((p) => [p.text, p.active]);

describe('parsing the real 2.1.330 sessions', () => {
  it('linear: five prompts, all live, each with its tool and native checkpoint', async () => {
    const t = await timelineOf(LINEAR);
    expect(promptSummary(t)).toEqual([
      ['WRITE a.txt version one', true],
      ['WRITE a.txt version two', true],
      ['BASH echo bashmade > c.txt', true],
      ['EDIT notes.md alpha gamma', true],
      ['WRITE b.txt bee', true],
    ]);
    expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['Write'], ['Write'], ['Bash'], ['Edit'], ['Write']]);
    expect(t.prompts[2]!.turn.filesTouched).toEqual([]);
    expect(t.prompts[3]!.turn.filesTouched).toEqual(['notes.md']);
    // Prompt 5's native checkpoint: a.txt v3, notes.md v2, and b.txt that did not exist yet.
    expect(t.prompts[4]!.nativeCheckpoint!.files).toEqual([
      { path: 'a.txt', backupFileName: 'd5fcb46b897ec8fd@v3', version: 3, editedInTurn: false },
      { path: 'notes.md', backupFileName: '260b0a09289f2990@v2', version: 2, editedInTurn: false },
      { path: 'b.txt', backupFileName: null, version: 1, editedInTurn: true },
    ]);
    expect(t.session).toMatchObject({ id: '2ea8980a-26fe-4928-aab5-4ebf6074b664', cwd: '/home/dev/projects/linear', version: '2.1.330' });
    expect(t.issues).toEqual([]);
    expect(t.branches).toEqual([]);
  });

  it('branched: 6 prompts, 4 live, 2 on the dead branch, one branch point', async () => {
    const t = await timelineOf(BRANCHED);
    expect(promptSummary(t)).toEqual([
      ['WRITE a.txt version one', true],
      ['WRITE a.txt version two', true],
      ['BASH echo bashmade > c.txt', false],
      ['WRITE b.txt bee', false],
      ['WRITE d.txt branch two', true],
      ['WRITE e.txt after branch', true],
    ]);
    expect(t.prompts.map((p) => p.number)).toEqual([1, 2, null, null, 3, 4]);
    expect(t.prompts.map((p) => p.lane)).toEqual([0, 0, 1, 1, 0, 0]);
    expect(t.branches).toHaveLength(1);
    const b = t.branches[0]!;
    expect(b.afterPromptUuid).toBe(t.prompts[1]!.uuid);
    expect(b.liveChild).toBe(t.prompts[4]!.uuid);
    expect(b.deadRoots).toEqual([t.prompts[2]!.uuid]);
    expect(t.prompts[2]!.forkPoint).toBe(b.forkPoint);
    expect(t.stats).toMatchObject({ prompts: 6, activePrompts: 4, deadPrompts: 2 });
  });

  it('subagent: /compact is a command, the compaction is linked, the subagent hangs off its prompt', async () => {
    const t = await timelineOf(SUBAGENT);
    expect(promptSummary(t)).toEqual([
      ['SPAWN sub.txt', true],
      ['EDIT notes.md alpha gamma', true],
      ['WRITE post.txt after compaction', true],
    ]);
    expect(t.commands.map((c) => [c.name, c.active])).toEqual([['/compact', true]]);
    expect(t.compactions).toHaveLength(1);
    expect(t.compactions[0]!.active).toBe(true);
    expect(t.compactions[0]!.afterPromptUuid).toBe(t.prompts[1]!.uuid);
    expect(t.subagents).toHaveLength(1);
    expect(t.subagents[0]).toMatchObject({ agentId: 'a7e4078c1570ac4d3', agentType: 'general-purpose', description: 'helper task', promptUuid: t.prompts[0]!.uuid, inline: false });
    expect(t.subagents[0]!.messageCount).toBeGreaterThan(0);
  });
});

describe('parsing every fixture', () => {
  it('reports no error on well-formed lines', async () => {
    const files = await allFixtureTranscripts();
    expect(files.length).toBeGreaterThan(8);
    for (const f of files) {
      if (f.includes('codex')) continue;
      const model = await parseTranscriptFile(f);
      expect(model.issues, f).toEqual([]);
    }
  });

  it('the synthetic rewind+compaction file: the dead attempt is dead, history continues across the boundary', async () => {
    const t = await timelineOf(join(FIXTURES, 'public', 'claude-SYNTHETIC-rewind-branch-compaction.jsonl'));
    expect(promptSummary(t)).toEqual([
      ['Start', true],
      ['First attempt', false],
      ['Second attempt', true],
      ['Keep going', true],
      ['After compaction', true],
    ]);
  });

  it('1.0.x: a slash command that prompts the model is a prompt (as typed), its isMeta expansion is not; inline sidechains are subagent runs', async () => {
    const init = await timelineOf(join(FIXTURES, 'public', 'claude-1.0.98-real-slashcmd-init-tooluse.jsonl'));
    expect(init.prompts.map((p) => [p.number, p.text])).toEqual([[1, '/init']]);
    expect(init.commands).toEqual([]);
    const tasks = await timelineOf(join(FIXTURES, 'public', 'claude-1.0.98-real-summary-task-subagents.jsonl'));
    expect(tasks.prompts.map((p) => [p.number, p.text])).toEqual([
      [1, '/orchestrator create TODO app by Next.js'],
      [2, 'Thanks! Please update CLAUDE.md for current changes'],
    ]);
    // The custom command's turn holds the model's work it started (the five Task subagents).
    expect(tasks.prompts[0]!.turn.toolCalls.length).toBeGreaterThan(0);
    expect(tasks.session.title).toBe('Empty Repo Setup: CLAUDE.md Foundation Created');
    expect(tasks.subagents.filter((s) => s.inline)).toHaveLength(5);
    expect(tasks.subagents.every((s) => s.promptUuid === null || typeof s.promptUuid === 'string')).toBe(true);
    const japanese = await timelineOf(join(FIXTURES, 'public', 'claude-1.0.108-real-inline-sidechains.jsonl'));
    expect(japanese.prompts.map((p) => p.text)).toEqual(['/orchestrator @CLAUDE.md を最新の状態にアップデートしてください']);
  });

  it('a local command (/compact: <command-name> first, then its stdout) stays a command, not a prompt', async () => {
    const t = await timelineOf(SUBAGENT);
    expect(t.commands.map((c) => c.name)).toContain('/compact');
    expect(t.prompts.some((p) => p.text.startsWith('/compact'))).toBe(false);
  });
});

describe('fuzzed variants give the same prompts', () => {
  async function variant(name: string, transform: (text: string) => string | Buffer): Promise<string> {
    const dir = await tempDir();
    const p = join(dir, name);
    await writeFile(p, transform(await readFile(BRANCHED, 'utf8')));
    return p;
  }
  const expected = async () => promptSummary(await timelineOf(BRANCHED));

  it('a truncated last line is reported, not fatal', async () => {
    const p = await variant('trunc.jsonl', (t) => `${t}{"type":"user","message":{"role":"user","content":"half`);
    const t = await timelineOf(p);
    expect(promptSummary(t)).toEqual(await expected());
    expect(t.issues).toHaveLength(1);
    expect(t.issues[0]!.reason).toMatch(/incomplete last line/);
  });

  it('a garbage line is reported with its line number and byte offset', async () => {
    const original = await readFile(BRANCHED, 'utf8');
    const lines = original.split('\n');
    const garbageAt = 10;
    const p = await variant('garbage.jsonl', () => [...lines.slice(0, garbageAt), '{not json at all', ...lines.slice(garbageAt)].join('\n'));
    const t = await timelineOf(p);
    expect(promptSummary(t)).toEqual(await expected());
    const offset = Buffer.byteLength(lines.slice(0, garbageAt).join('\n')) + 1;
    expect(t.issues).toEqual([{ line: garbageAt + 1, offset, reason: expect.stringMatching(/malformed JSON/) }]);
  });

  it('CRLF line ends', async () => {
    const p = await variant('crlf.jsonl', (t) => t.replace(/\n/g, '\r\n'));
    const t = await timelineOf(p);
    expect(promptSummary(t)).toEqual(await expected());
    expect(t.issues).toEqual([]);
  });

  it('a 20 MB line (tool output)', async () => {
    const big = JSON.stringify({ type: 'progress', data: 'x'.repeat(20 * 1024 * 1024) });
    const p = await variant('big.jsonl', (t) => {
      const lines = t.split('\n');
      return [...lines.slice(0, 20), big, ...lines.slice(20)].join('\n');
    });
    const t = await timelineOf(p);
    expect(promptSummary(t)).toEqual(await expected());
    expect(t.issues).toEqual([]);
  });

  it('a UTF-8 character split across a read chunk boundary', async () => {
    const text = (await readFile(BRANCHED, 'utf8')).replaceAll('WRITE d.txt branch two', 'WRITE d.txt brånch twö 😀');
    const bytes = Buffer.from(text);
    const at = bytes.lastIndexOf(Buffer.from('😀'));
    const dir = await tempDir();
    const p = join(dir, 'utf8.jsonl');
    await writeFile(p, bytes);
    for (const chunkSize of [at + 1, at + 2, at + 3, 4096]) {
      const b = new SessionBuilder();
      await readLines(p, (l) => b.addLine(l), { chunkSize });
      const m = b.build({ transcriptPath: p, size: bytes.length, endOffset: bytes.length, hasPartialLine: false });
      expect(m.prompts.map((x) => x.text)[4]).toBe('WRITE d.txt brånch twö 😀');
      expect(m.issues).toEqual([]);
    }
  });
});

describe('bad input', () => {
  it('an empty file, a binary file, a missing file: one clear error each', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'empty.jsonl'), '');
    await writeFile(join(dir, 'bin.jsonl'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 10, 0, 0]));
    await expect(parseTranscriptFile(join(dir, 'empty.jsonl'))).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT', message: expect.stringMatching(/empty/) });
    await expect(parseTranscriptFile(join(dir, 'bin.jsonl'))).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT', message: expect.stringMatching(/binary/) });
    await expect(parseTranscriptFile(join(dir, 'nope.jsonl'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
