import { appendFile, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINEAR, SUBAGENT, tempDir } from '../../../../test/fixtures.js';
import { parseTranscriptFile } from './parse-transcript.js';
import { turnDetail } from './turn-detail.js';

describe('turn detail', () => {
  it('a Write is the file it wrote, a Bash call its command with its output, each result paired to its call; the model is named', async () => {
    const model = await parseTranscriptFile(LINEAR);
    const write = await turnDetail(model, model.prompts.find((p) => p.text.startsWith('WRITE a.txt version one'))!.uuid);
    expect(write.model).toBe('claude-opus-5-5');
    expect(write.items.map((i) => `${i.kind} ${i.title}`)).toEqual(['tool-call Write a.txt', 'text Said']);
    expect(write.items[0]!.tool).toMatchObject({ view: 'write', path: 'a.txt', content: 'version one\n', result: { isError: false } });
    expect(write.items[0]!.tool!.result!.text).toContain('a.txt has been updated');
    const bash = await turnDetail(model, model.prompts.find((p) => p.text.startsWith('BASH'))!.uuid);
    expect(bash.items[0]!.tool).toMatchObject({ view: 'bash', command: 'echo bashmade > c.txt', result: { text: '(Bash completed with no output)' } });
    const edit = await turnDetail(model, model.prompts.find((p) => p.text.startsWith('EDIT'))!.uuid);
    expect(edit.items[0]!.tool).toMatchObject({ view: 'edit', path: 'notes.md', edits: [{ oldText: 'alpha', newText: 'gamma' }] });
    // No item is a bare result any more: each went to its call.
    expect([...write.items, ...bash.items, ...edit.items].filter((i) => i.kind === 'tool-result')).toEqual([]);
  });

  it("a subagent's item is its own conversation, from its transcript: what it was asked, its tool calls with results, its model", async () => {
    const model = await parseTranscriptFile(SUBAGENT);
    const turn = await turnDetail(model, model.prompts.find((p) => p.text.startsWith('SPAWN'))!.uuid);
    const sub = turn.items.filter((i) => i.kind === 'subagent');
    expect(sub).toHaveLength(1);
    expect(sub[0]!.title).toBe('helper task');
    const run = sub[0]!.subagent!;
    expect(run).toMatchObject({ agentType: 'general-purpose', model: 'claude-opus-5-5', truncated: false, note: null });
    expect(run.items.map((i) => `${i.kind} ${i.title}`)).toEqual(['prompt Asked', 'tool-call Write sub.txt', 'text Said']);
    expect(run.items[0]!.body).toContain('WRITE sub.txt hello-from-subagent');
    expect(run.items[1]!.tool).toMatchObject({ view: 'write', path: 'sub.txt', content: 'hello-from-subagent\n' });
    expect(run.items[1]!.tool!.result!.text).toContain('File created');
  });

  it('images in the prompt and in a tool result are sent, within bounds', async () => {
    const dir = await tempDir();
    const path = join(dir, 'img.jsonl');
    await copyFile(LINEAR, path);
    const base = (await parseTranscriptFile(path)).order.at(-1)!;
    const png = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64');
    const img = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } };
    const huge = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(4 * 1024 * 1024) } };
    const line = (o: object) => `${JSON.stringify({ sessionId: 's', cwd: dir, timestamp: '2026-11-22T05:00:00Z', isSidechain: false, ...o })}\n`;
    await appendFile(
      path,
      line({ type: 'user', uuid: 'p-img', parentUuid: base.uuid, promptId: 'img', message: { role: 'user', content: [{ type: 'text', text: 'look at this' }, img] } }) +
        line({ type: 'assistant', uuid: 'a-img', parentUuid: 'p-img', message: { id: 'm1', role: 'assistant', model: 'claude-test', content: [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'shot.png' } }] } }) +
        line({ type: 'user', uuid: 'r-img', parentUuid: 'a-img', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: [img, huge] }] } }),
    );
    const model = await parseTranscriptFile(path);
    const turn = await turnDetail(model, 'p-img');
    expect(turn.promptImages).toEqual([{ mediaType: 'image/png', data: png, bytes: 8 }]);
    expect(turn.model).toBe('claude-test');
    expect(turn.items).toHaveLength(1);
    expect(turn.items[0]!.tool).toMatchObject({ view: 'read', path: 'shot.png' });
    expect(turn.items[0]!.images.map((i) => i.data === null)).toEqual([false, true]);
    expect(turn.items[0]!.images[1]!.bytes).toBe(3 * 1024 * 1024);
  });
});

describe('turn as text (export)', () => {
  it('each tool call says what it did in text, followed by its result; a subagent lists its steps', async () => {
    const { plainItems } = await import('../../turn/plain.js');
    const linear = await parseTranscriptFile(LINEAR);
    const write = plainItems((await turnDetail(linear, linear.prompts[0]!.uuid)).items);
    expect(write.map((i) => `${i.kind} ${i.title}`)).toEqual(['tool-call Write a.txt', 'tool-result Result', 'text Said']);
    expect(write[0]!.body).toBe('a.txt\n\nversion one\n');
    expect(write[1]!.body).toContain('has been updated');
    const sub = await parseTranscriptFile(SUBAGENT);
    const spawn = plainItems((await turnDetail(sub, sub.prompts[0]!.uuid)).items);
    expect(spawn[0]!.kind).toBe('subagent');
    expect(spawn[0]!.body).toMatch(/What it did:\nAsked: Please create[^\n]*\nWrite sub\.txt: sub\.txt/);
  });
});

describe('subagent steps are bounded', () => {
  it('a run shows at most the steps it is given, says when there are more, and none past the turn budget', async () => {
    const { subagentConversation } = await import('./subagent-outline.js');
    const run = (await parseTranscriptFile(SUBAGENT)).subagents[0]!;
    const one = await subagentConversation(run, 1);
    expect(one.items.map((i) => i.kind)).toEqual(['prompt']);
    expect(one.truncated).toBe(true);
    const none = await subagentConversation(run, 0);
    expect([none.items.length, none.truncated, none.note]).toEqual([0, true, expect.stringContaining('own transcript')]);
    const all = await subagentConversation(run);
    expect([all.items.length, all.truncated]).toEqual([3, false]);
  });
});
