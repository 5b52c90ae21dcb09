import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { generateRewound } from '../../../bench/generate-rewound.js';
import { BRANCHED, LINEAR, SUBAGENT, copyClaudeHome, inCopy, tempDir } from '../../../test/fixtures.js';
import { parseTranscriptFile } from '../../engine/agents/claude/parse-transcript.js';
import { toTimeline } from '../../engine/agents/claude/timeline.js';
import type { RewindEvent } from '../../shared/contract.js';
import { LiveSessions, type RefreshWork } from './live-sessions.js';
import { InlineRunner } from './task-runner.js';

type TimelineEvent = Extract<RewindEvent, { type: 'timelineChanged' }>;

function liveSessions() {
  const events: TimelineEvent[] = [];
  const live = new LiveSessions((e) => e.type === 'timelineChanged' && events.push(e), new InlineRunner());
  return { live, events };
}

describe('LiveSessions on a transcript the agent appends to', () => {
  for (const fixture of [LINEAR, BRANCHED, SUBAGENT]) {
    it(`follows ${fixture.split('/').pop()} line by line, equal to a full parse after every append, with the right events`, async () => {
      const root = await copyClaudeHome();
      const file = inCopy(root, fixture);
      const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
      await writeFile(file, `${lines.slice(0, 3).join('\n')}\n`);
      const { live, events } = liveSessions();
      let shown = structuredClone((await live.get(file)).timeline);
      const kinds: RefreshWork['kind'][] = [];
      for (const line of lines.slice(3)) {
        events.length = 0;
        await appendFile(file, `${line}\n`);
        await live.refresh(file);
        const { timeline } = await live.get(file);
        expect(timeline).toEqual(toTimeline(await parseTranscriptFile(file)));
        const work = live.work.get(file)!;
        kinds.push(work.kind);
        // What the window does with the event gives the same timeline.
        expect(events).toHaveLength(1);
        const e = events[0]!;
        if (e.kind === 'reread') shown = structuredClone(e.timeline!);
        else {
          expect(work.kind).toBe('extend');
          for (const p of e.upserts) {
            const i = shown.prompts.findIndex((q) => q.uuid === p.uuid);
            if (i === -1) shown.prompts.push(p);
            else shown.prompts[i] = p;
          }
          shown.stats = e.stats;
        }
        expect(shown.prompts).toEqual(timeline.prompts);
        expect(shown.stats).toEqual(timeline.stats);
      }
      expect(kinds.filter((k) => k === 'extend').length).toBeGreaterThan(lines.length - 10);
      if (fixture === BRANCHED) expect(kinds).toContain('rebuild');
    });
  }

  it('an append costs the same on a 10,000-message session with 275 rewinds as on a small one (messages and prompts touched)', async () => {
    const dir = await tempDir();
    const big = join(dir, 'big.jsonl');
    const small = join(dir, 'small.jsonl');
    const g = await generateRewound(big, { messages: 10_000, rewinds: 275 });
    await generateRewound(small, { messages: 60, rewinds: 2 });
    const { live } = liveSessions();
    const appendTurns = async (file: string) => {
      const { timeline } = await live.get(file);
      let leaf = timeline.activeLeaf!;
      const work: RefreshWork[] = [];
      for (let i = 0; i < 10; i++) {
        const ids = [0, 1, 2, 3].map((k) => `a99e0000-0000-4000-8000-${String(i * 4 + k).padStart(12, '0')}`);
        const base = { isSidechain: false, userType: 'external', sessionId: 's', cwd: '/home/dev/project', timestamp: new Date(Date.UTC(2026, 11, 1, 0, i)).toISOString() };
        const turn = [
          { ...base, type: 'user', uuid: ids[0], parentUuid: leaf, message: { role: 'user', content: `appended prompt ${i}` } },
          { ...base, type: 'assistant', uuid: ids[1], parentUuid: ids[0], message: { id: `x${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `tx${i}`, name: 'Write', input: { file_path: 'a.txt', content: 'x' } }], usage: { input_tokens: 5, output_tokens: 1 } } },
          { ...base, type: 'user', uuid: ids[2], parentUuid: ids[1], message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tx${i}`, content: 'ok' }] } },
          { ...base, type: 'assistant', uuid: ids[3], parentUuid: ids[2], message: { id: `y${i}`, role: 'assistant', content: [{ type: 'text', text: 'Done.' }] } },
        ];
        // The prompt alone, then the rest of its turn in one write.
        await appendFile(file, `${JSON.stringify(turn[0])}\n`);
        await live.refresh(file);
        work.push(live.work.get(file)!);
        await appendFile(file, `${turn.slice(1).map((l) => JSON.stringify(l)).join('\n')}\n`);
        await live.refresh(file);
        work.push(live.work.get(file)!);
        leaf = ids[3]!;
      }
      return work;
    };
    const bigWork = await appendTurns(big);
    const smallWork = await appendTurns(small);
    expect(bigWork.every((w) => w.kind === 'extend')).toBe(true);
    // Independent of the session's size: the same work, touching only the appended lines.
    expect(bigWork).toEqual(smallWork);
    for (const w of bigWork) {
      expect(w.messages).toBeLessThanOrEqual(2 * w.lines);
      expect(w.prompts).toBeLessThanOrEqual(1);
    }
    const { timeline } = await live.get(big);
    expect(timeline.stats.prompts).toBe(g.prompts + 10);
    expect(timeline.stats.activePrompts).toBe(g.livePrompts + 10);
    expect(timeline).toEqual(toTimeline(await parseTranscriptFile(big)));
  });

  it('a new branch, a rewritten file and a partial line', async () => {
    const root = await copyClaudeHome();
    const file = inCopy(root, LINEAR);
    const { live, events } = liveSessions();
    const before = (await live.get(file)).timeline;
    const first = before.prompts[0]!;
    // A prompt hanging off the first prompt's line: a new dead branch for the old tail... and the new live path.
    const line = { type: 'user', uuid: 'b0000000-0000-4000-8000-000000000001', parentUuid: first.uuid, isSidechain: false, sessionId: before.session.id, timestamp: new Date().toISOString(), message: { role: 'user', content: 'branch here' } };
    const text = `${JSON.stringify(line)}\n`;
    await appendFile(file, text.slice(0, 20));
    await live.refresh(file);
    expect(events).toHaveLength(0);
    await appendFile(file, text.slice(20));
    await live.refresh(file);
    expect(live.work.get(file)!.kind).toBe('rebuild');
    expect(events.pop()).toMatchObject({ kind: 'reread' });
    const after = (await live.get(file)).timeline;
    expect(after).toEqual(toTimeline(await parseTranscriptFile(file)));
    expect(after.branches).toHaveLength(1);
    // Rewritten in place (same size or smaller): read again whole.
    await writeFile(file, (await readFile(file, 'utf8')).split('\n').slice(0, 10).join('\n') + '\n');
    await live.refresh(file);
    expect(events.pop()).toMatchObject({ kind: 'reread' });
    expect((await live.get(file)).timeline).toEqual(toTimeline(await parseTranscriptFile(file)));
  });
});

describe("an append's event and Rewind's checkpoint markers", () => {
  it('marks a new prompt with the checkpoint its hook took just before, after the project list was read for an earlier event', async () => {
    const { RewindService } = await import('./rewind-service.js');
    const { takeCheckpoint } = await import('../../engine/store/checkpoint.js');
    const { mkdir } = await import('node:fs/promises');
    const home = await tempDir();
    const project = join(home, 'project');
    await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
    await writeFile(join(project, 'a.txt'), 'one\n');
    const root = join(home, '.claude');
    const file = join(root, 'projects', '-project', '11111111-0000-4000-8000-000000000001.jsonl');
    await mkdir(join(file, '..'), { recursive: true });
    const base = { isSidechain: false, userType: 'external', cwd: project, sessionId: '11111111-0000-4000-8000-000000000001', version: '2.1.330' };
    const line = (o: Record<string, unknown>) => `${JSON.stringify({ ...base, timestamp: new Date().toISOString(), ...o })}\n`;
    const user = (uuid: string, parentUuid: string | null, text: string) => line({ type: 'user', uuid, parentUuid, message: { role: 'user', content: text } });
    await writeFile(file, user('c0000000-0000-4000-8000-000000000001', null, 'first'));
    const svc = new RewindService({ claudeRoot: root, roots: { codex: join(home, 'no-codex') }, cacheDir: join(home, 'cache') });
    const events: TimelineEvent[] = [];
    svc.onEvent((e) => e.type === 'timelineChanged' && events.push(e));
    await svc.start();
    try {
      // The store already holds a checkpoint (the project's list exists and is read).
      await takeCheckpoint({ projectRoot: project, trigger: 'manual' });
      expect((await svc.handle('getTimeline', { session: file })).ok).toBe(true);
      // An earlier append: its event reads the project's (empty) checkpoint list.
      await appendFile(file, line({ type: 'assistant', uuid: 'c0000000-0000-4000-8000-000000000002', parentUuid: 'c0000000-0000-4000-8000-000000000001', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'ok' }] } }));
      await vi.waitFor(() => expect(events).toHaveLength(1), { timeout: 5000, interval: 20 });
      // The prompt hook checkpoints, then the prompt's line lands.
      const uuid = 'c0000000-0000-4000-8000-000000000003';
      const cp = await takeCheckpoint({ projectRoot: project, trigger: 'prompt', transcript: { transcript_path: file, session_id: base.sessionId, agent: 'claude', prompt_uuid: uuid, prompt_id: null, byte_offset_end: 0, prefix_sha256: '' } });
      await appendFile(file, user(uuid, 'c0000000-0000-4000-8000-000000000002', 'second'));
      await vi.waitFor(() => expect(events.some((e) => e.upserts.some((p) => p.uuid === uuid && p.checkpoint?.id === cp.manifest.id))).toBe(true), { timeout: 5000, interval: 20 });
    } finally {
      await svc.close();
    }
  });
});
