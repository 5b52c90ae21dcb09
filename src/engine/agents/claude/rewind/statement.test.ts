import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRANCHED, LINEAR, SUBAGENT, copyClaudeHome, inCopy, tempDir } from '../../../../../test/fixtures.js';
import { droppedPrompts, statementLines } from '../../../../shared/wording.js';
import { parseTranscriptFile } from '../parse-transcript.js';
import { toTimeline } from '../timeline.js';
import { rewindTranscript } from './rewind.js';

const past = new Date(Date.now() - 3600_000);

async function timelineOf(path: string) {
  return toTimeline(await parseTranscriptFile(path, { withSubagents: false }));
}

/**
 * For every prompt of each recorded session: fork there for real, read the fork back with the full
 * parser, and check the statement (computed before writing, from the tail scan) against what the
 * fork actually holds.
 */
describe.each([
  ['linear', LINEAR],
  ['branched', BRANCHED],
  ['subagent + compaction', SUBAGENT],
])('rewind statement: %s, every prompt', (_name, fixture) => {
  it('names exactly the kept end, the live prompts left out and the prompts handed back', async () => {
    const root = await copyClaudeHome();
    const transcript = inCopy(root, fixture);
    await utimes(transcript, past, past);
    const project = await tempDir('rewind-stmt-');
    const t = await timelineOf(transcript);
    const live = t.prompts.filter((p) => p.active);
    const firstLive = live[0]!;
    expect(t.prompts.length).toBeGreaterThan(2);
    for (const target of t.prompts) {
      const opts = { transcriptPath: transcript, promptUuid: target.uuid, projectRoot: project, claudeRoot: root, livePromptCount: live.length };
      if (target.uuid === firstLive.uuid) {
        await expect(rewindTranscript({ ...opts, mode: 'fork', dryRun: true })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS' });
        continue;
      }
      const dry = await rewindTranscript({ ...opts, mode: 'fork', dryRun: true });
      const s = dry.statement;
      const fork = await rewindTranscript({ ...opts, mode: 'fork' });
      expect(fork.statement).toEqual(s);
      const ft = await timelineOf(fork.forkPath!);
      const forkLive = ft.prompts.filter((p) => p.active);
      const kept = new Set(forkLive.map((p) => p.uuid));
      const what = `target ${target.number ?? 'dead'} "${target.text}"`;

      // The kept end is the fork's last live prompt; its number is the one it has now, when live.
      const end = forkLive[forkLive.length - 1]!;
      expect(s.keptEnd?.uuid, what).toBe(end.uuid);
      expect(s.keptEnd?.text).toBe(end.text);
      const endNow = t.prompts.find((p) => p.uuid === end.uuid)!;
      expect(s.keptEnd?.live).toBe(endNow.active);
      expect(s.keptEnd?.number).toBe(endNow.number);
      // Every live prompt the fork no longer holds, with its number, and no other.
      expect(s.droppedLive.map((p) => [p.uuid, p.number]), what).toEqual(live.filter((p) => !kept.has(p.uuid)).map((p) => [p.uuid, p.number]));
      // Nothing the statement calls kept is missing, and the target itself is gone.
      expect(kept.has(target.uuid)).toBe(false);
      expect(ft.prompts.some((p) => p.uuid === target.uuid)).toBe(false);
      if (target.active) {
        expect(s.targetLive).toBe(true);
        expect(s.droppedBranch).toEqual([]);
        expect(s.handedBack.map((p) => p.uuid)).toEqual(live.slice(live.findIndex((p) => p.uuid === target.uuid)).map((p) => p.uuid));
      } else {
        expect(s.targetLive).toBe(false);
        expect(s.handedBack.map((p) => p.uuid)).toEqual([target.uuid]);
        // The rest of the target's abandoned branch (its descendants) is gone too, and named.
        const parent = new Map(t.prompts.map((p) => [p.uuid, p]));
        const descends = (p: (typeof t.prompts)[number]) => !p.active && p.uuid !== target.uuid && p.index > target.index && p.forkPoint === target.forkPoint && p.lane === target.lane;
        expect(s.droppedBranch.map((p) => p.uuid).sort()).toEqual(t.prompts.filter(descends).map((p) => p.uuid).sort());
        for (const p of s.droppedBranch) expect(ft.prompts.some((q) => q.uuid === p.uuid)).toBe(false);
        expect(parent.size).toBe(t.prompts.length);
      }
      // An in-place rewrite states the same conversation (and names what else leaves the file).
      const inPlace = await rewindTranscript({ ...opts, mode: 'in-place', dryRun: true });
      expect(s.droppedOther).toEqual([]);
      expect({ ...inPlace.statement, mode: 'fork', droppedOther: [] }).toEqual(s);
      // The words say it: the kept end first, then every live prompt left out.
      const words = statementLines(s).join(' ');
      expect(words).toContain(`will end after ${s.keptEnd!.number !== null ? `#${s.keptEnd!.number} ` : ''}'`);
      for (const p of s.droppedLive) expect(words).toContain(`#${p.number}`);
    }
  });
});

describe('rewind statement wording', () => {
  it('a dead-branch target reads as the issue asks', async () => {
    const root = await copyClaudeHome();
    const transcript = inCopy(root, BRANCHED);
    const t = await timelineOf(transcript);
    const bash = t.prompts.find((p) => p.text === 'BASH echo bashmade > c.txt')!;
    const r = await rewindTranscript({ transcriptPath: transcript, promptUuid: bash.uuid, mode: 'in-place', dryRun: true, projectRoot: await tempDir('rewind-stmt-'), livePromptCount: 4 });
    expect(statementLines(r.statement)).toEqual([
      "The session will end after #2 'WRITE a.txt version two'.",
      "Leaves out #3, #4 (live) and 'WRITE b.txt bee' (after it on its abandoned branch).",
      "Handed back to edit: 'BASH echo bashmade > c.txt' (from an abandoned branch).",
    ]);
  });

  it('an in-place rewrite at live #3 names the abandoned branch it removes from the file', async () => {
    const root = await copyClaudeHome();
    const transcript = inCopy(root, BRANCHED);
    const t = await timelineOf(transcript);
    const d = t.prompts.find((p) => p.number === 3)!;
    const opts = { transcriptPath: transcript, promptUuid: d.uuid, dryRun: true, projectRoot: await tempDir('rewind-stmt-'), livePromptCount: 4 };
    const r = await rewindTranscript({ ...opts, mode: 'in-place' });
    expect(statementLines(r.statement)).toEqual([
      "The session will end after #2 'WRITE a.txt version two'.",
      'Leaves out #3, #4 (live).',
      "Also removes from the file 2 prompts of other abandoned branches: 'BASH echo bashmade > c.txt' and 'WRITE b.txt bee' (Undo brings them back).",
      'Handed back to edit: 2 prompts, oldest first.',
    ]);
    expect(droppedPrompts(r.statement)).toHaveLength(4);
    // A fork leaves the original whole: it names only the conversation it leaves out.
    const f = await rewindTranscript({ ...opts, mode: 'fork' });
    expect(f.statement.droppedOther).toEqual([]);
    expect(droppedPrompts(f.statement)).toHaveLength(2);
  });

  it('without the live count (the fast path) prompts are named by their text', async () => {
    const root = await copyClaudeHome();
    const transcript = inCopy(root, LINEAR);
    const r = await rewindTranscript({ transcriptPath: transcript, n: 2, mode: 'fork', dryRun: true, projectRoot: null });
    expect(statementLines(r.statement)).toEqual([
      "The new session will end after 'BASH echo bashmade > c.txt'.",
      "Leaves out 'EDIT notes.md alpha gamma', 'WRITE b.txt bee' (live).",
      'Handed back to edit: 2 prompts, oldest first.',
    ]);
  });
});

describe('confirm re-validates against the preview', () => {
  it('a transcript that changed since the preview is refused and nothing is written', async () => {
    const root = await copyClaudeHome();
    const transcript = inCopy(root, LINEAR);
    await utimes(transcript, past, past);
    const project = await tempDir('rewind-stale-');
    const dry = await rewindTranscript({ transcriptPath: transcript, n: 1, mode: 'fork', dryRun: true, projectRoot: project });
    const { appendFile, readdir } = await import('node:fs/promises');
    await appendFile(transcript, '{"type":"mode","mode":"normal"}\n');
    const before = (await readdir(join(transcript, '..'))).sort();
    await expect(rewindTranscript({ transcriptPath: transcript, n: 1, mode: 'fork', projectRoot: project, expectSize: dry.size })).rejects.toMatchObject({ code: 'TRANSCRIPT_CHANGED' });
    expect((await readdir(join(transcript, '..'))).sort()).toEqual(before);
    expect(await readdir(project)).toEqual([]);
  });
});
