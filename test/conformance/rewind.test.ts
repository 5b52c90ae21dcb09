import { open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTranscriptFile } from '../../src/engine/agents/claude/parse-transcript.js';
import { toTimeline } from '../../src/engine/agents/claude/timeline.js';
import type { ScriptedApi } from './scripted-api.js';
import { SCENARIOS, resumedHistory, runScenario, rewindFilesTree, type Scenario } from './scenario.js';
import { claudeOrSkip, copySession, ensureCliBuilt, keepRecording, rewindApp, withApi } from './harness.js';
import { tempDir } from '../temp.js';

const claude = claudeOrSkip();
const run = 'bin' in claude;
let api: ScriptedApi;
const s: Record<string, Scenario> = {};

/** Live-path steps in order: what `back n` counts (commands like /compact are not prompts). */
function liveSteps(sc: Scenario): Scenario['steps'] {
  const dead = sc.spec.name === 'branched' ? new Set([2, 3]) : new Set<number>();
  return sc.steps.filter((st, i) => !dead.has(i) && !st.prompt.startsWith('/'));
}

/** What a resume must show after going back n: the history the CLI had when that prompt was sent. */
function expectedBefore(sc: Scenario, n: number): string[] {
  const live = liveSteps(sc);
  const target = live[live.length - n]!;
  expect(target.history, `history recorded for "${target.prompt}"`).not.toBeNull();
  const h = target.history!;
  const before = h.slice(0, h.lastIndexOf(`user: ${target.prompt}`));
  expect(before.length, 'a non-empty expected history').toBeGreaterThan(0);
  return before;
}

describe.runIf(run)('conformance with the real Claude Code CLI', () => {
  beforeAll(async () => {
    if (!('bin' in claude)) return;
    ensureCliBuilt();
    api = await withApi();
    for (const name of ['linear', 'branched', 'subagent']) s[name] = await runScenario(SCENARIOS[name]!, { bin: claude.bin, apiUrl: api.url }, api);
    await keepRecording('claude', s.linear!.env.configDir);
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('the engine reads what the CLI wrote', () => {
    it('linear: five live prompts with their tools', async () => {
      const t = toTimeline(await parseTranscriptFile(s.linear!.transcript));
      expect(t.prompts.map((p) => [p.text, p.active])).toEqual(SCENARIOS.linear!.steps.map((st) => [st.prompt, true]));
      expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['Write'], ['Write'], ['Bash'], ['Edit'], ['Write']]);
      expect(t.prompts.every((p) => p.nativeCheckpoint !== null)).toBe(true);
      expect(t.issues).toEqual([]);
    });

    it('branched: the abandoned prompts are dead, the branch hangs off prompt 2', async () => {
      const t = toTimeline(await parseTranscriptFile(s.branched!.transcript));
      expect(t.prompts.map((p) => [p.text, p.active])).toEqual([
        ['WRITE a.txt version one', true],
        ['WRITE a.txt version two', true],
        ['BASH echo bashmade > c.txt', false],
        ['WRITE b.txt bee', false],
        ['WRITE d.txt branch two', true],
        ['WRITE e.txt after branch', true],
      ]);
      expect(t.branches).toHaveLength(1);
      expect(t.branches[0]!.afterPromptUuid).toBe(t.prompts[1]!.uuid);
    });

    it('subagent: /compact is a command, a compaction follows, the subagent hangs off its prompt', async () => {
      const t = toTimeline(await parseTranscriptFile(s.subagent!.transcript));
      expect(t.prompts.map((p) => [p.text, p.active])).toEqual([
        ['SPAWN sub.txt', true],
        ['EDIT notes.md alpha gamma', true],
        ['WRITE post.txt after compaction', true],
      ]);
      expect(t.commands.map((c) => c.name)).toContain('/compact');
      expect(t.compactions).toHaveLength(1);
      expect(t.subagents).toHaveLength(1);
      expect(t.subagents[0]!.promptUuid).toBe(t.prompts[0]!.uuid);
    });
  });

  describe('forks resume with exactly the history before the boundary', () => {
    const cases: [string, number][] = [
      ['linear', 1],
      ['linear', 2],
      ['linear', 4],
      ['branched', 1],
      ['branched', 2],
      ['branched', 3],
      ['subagent', 1],
      ['subagent', 2],
    ];
    it.each(cases)('%s: back %i', async (name, n) => {
      const sc = s[name]!;
      const copy = await copySession(sc.transcript);
      const r = rewindApp(['back', String(n), '--json', '--transcript', copy.path, '--project', sc.project]);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      const history = await resumedHistory(sc, out.forkSessionId);
      expect(history).toEqual(expectedBefore(sc, n));
      const reverted = liveSteps(sc).slice(-n).map((st) => st.prompt);
      expect(out.prompts.map((p: { text: string }) => p.text)).toEqual(reverted);
      for (const p of reverted) expect(history).not.toContain(`user: ${p}`);
    });
  });

  describe('the rewind statement is what the real CLI resumes: every prompt, live or abandoned', () => {
    it.each(['linear', 'branched', 'subagent'])('%s: back --to each prompt', async (name) => {
      const sc = s[name]!;
      const t = toTimeline(await parseTranscriptFile(sc.transcript));
      const live = t.prompts.filter((p) => p.active);
      const known = new Set(t.prompts.map((p) => p.text));
      for (const target of t.prompts) {
        const copy = await copySession(sc.transcript);
        const r = rewindApp(['back', '--to', target.uuid, '--json', '--transcript', copy.path, '--project', sc.project]);
        if (target.uuid === live[0]!.uuid) {
          expect(r.code, 'the first prompt leaves nothing to resume').toBe(3);
          continue;
        }
        expect(r.code, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout) as { forkSessionId: string; statement: { keptEnd: { uuid: string; text: string } | null; droppedLive: { uuid: string }[]; handedBack: { uuid: string }[] } };
        // What the model is sent on resume: the prompts among its user words (a compaction's summary is not one).
        const history = await resumedHistory(sc, out.forkSessionId);
        const received = history.filter((l) => l.startsWith('user: ') && known.has(l.slice(6))).map((l) => l.slice(6));
        // What should be kept, from the timeline alone: the path to the target's parent.
        let keptPath: typeof t.prompts;
        if (target.active) keptPath = live.filter((p) => p.number! < target.number!);
        else {
          const branch = t.branches.find((b) => b.forkPoint === target.forkPoint)!;
          const fork = live.find((p) => p.uuid === branch.afterPromptUuid);
          keptPath = [...live.filter((p) => fork && p.number! <= fork.number!), ...t.prompts.filter((p) => !p.active && p.lane === target.lane && p.forkPoint === target.forkPoint && p.index < target.index)];
        }
        // A compaction kept in the result stands in for the prompts before it.
        const compaction = Math.max(-1, ...t.compactions.filter((c) => c.active && c.byteOffset < target.byteOffset).map((c) => c.byteOffset));
        const what = `${name}: --to ${target.number ?? 'dead'} "${target.text}"`;
        expect(received, what).toEqual(keptPath.filter((p) => p.byteOffset > compaction).map((p) => p.text));
        expect(out.statement.keptEnd?.text, what).toBe(keptPath[keptPath.length - 1]!.text);
        // The live prompts the model no longer gets (and no compaction covers) are exactly the ones named as dropped.
        const gone = live.filter((p) => !received.includes(p.text) && p.byteOffset > compaction).map((p) => p.uuid);
        expect(out.statement.droppedLive.map((p) => p.uuid), what).toEqual(gone);
        expect(out.statement.handedBack[0]!.uuid).toBe(target.uuid);
        expect(received).not.toContain(target.text);
      }
    });
  });

  describe('in place, every prompt: the statement is what the real CLI resumes and names all the file loses', () => {
    it.each(['linear', 'branched', 'subagent'])('%s: back --to each prompt --in-place', async (name) => {
      const sc = s[name]!;
      const t = toTimeline(await parseTranscriptFile(sc.transcript));
      const live = t.prompts.filter((p) => p.active);
      const known = new Set(t.prompts.map((p) => p.text));
      const project = await tempDir('rewind-conf-inplace-all-');
      for (const target of t.prompts) {
        if (target.uuid === live[0]!.uuid) continue;
        const copy = await copySession(sc.transcript);
        const r = rewindApp(['back', '--to', target.uuid, '--in-place', '--json', '--transcript', copy.path, '--project', project]);
        expect(r.code, r.stderr).toBe(0);
        const said = (JSON.parse(r.stdout) as { statement: { keptEnd: { text: string } | null; droppedLive: { uuid: string }[]; droppedBranch: { uuid: string }[]; droppedOther: { uuid: string }[]; handedBack: { uuid: string }[] } }).statement;
        const what = `${name}: --to ${target.number ?? 'dead'} "${target.text}" --in-place`;
        // (c) every prompt the written file no longer holds is named (read back with the full parser).
        const held = new Set(toTimeline(await parseTranscriptFile(copy.path)).prompts.map((p) => p.uuid));
        const named = new Set([...said.droppedLive, ...said.droppedBranch, ...said.droppedOther, ...said.handedBack].map((p) => p.uuid));
        expect(t.prompts.filter((p) => !held.has(p.uuid) && !named.has(p.uuid)).map((p) => p.text), what).toEqual([]);
        const history = await resumedHistory(sc, copy.id);
        const received = history.filter((l) => l.startsWith('user: ') && known.has(l.slice(6))).map((l) => l.slice(6));
        const compaction = Math.max(-1, ...t.compactions.filter((c) => c.active && c.byteOffset < target.byteOffset).map((c) => c.byteOffset));
        // (a) the live prompts named are the ones the resume no longer sends (a kept compaction stands in for those before it).
        expect(said.droppedLive.map((p) => p.uuid), what).toEqual(live.filter((p) => !received.includes(p.text) && p.byteOffset > compaction).map((p) => p.uuid));
        // (b) the kept end is the last prompt it sends (or, all of it under a compaction, a prompt before it).
        if (received.length) expect(said.keptEnd?.text, what).toBe(received[received.length - 1]);
        else expect(t.prompts.find((p) => p.text === said.keptEnd?.text)!.byteOffset, what).toBeLessThan(compaction);
      }
      await rm(project, { recursive: true, force: true });
    });
  });

  describe('in-place rewrites resume the same way, and undo puts the original back', () => {
    it.each([
      ['linear', 2],
      ['branched', 2],
    ] as [string, number][])('%s: back %i --in-place', async (name, n) => {
      const sc = s[name]!;
      const copy = await copySession(sc.transcript);
      const original = await readFile(copy.path);
      const project = await tempDir('rewind-conf-inplace-');
      const r = rewindApp(['back', String(n), '--in-place', '--transcript', copy.path, '--project', project]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Chat rewritten in-place\nBackup: /);
      const rewritten = await readFile(copy.path);
      expect(await resumedHistory(sc, copy.id)).toEqual(expectedBefore(sc, n));
      // The resume appended to the rewritten file: undo must say so, and --force still puts it back.
      // Undo trusts transcripts only inside the agent's config folder (or the project).
      const claudeDir = join(copy.path, '..', '..', '..');
      const refused = rewindApp(['undo', '--project', project, '--claude-dir', claudeDir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/changed since the rewrite/);
      const u = rewindApp(['undo', '--force', '--project', project, '--claude-dir', claudeDir]);
      expect(u.code, u.stderr).toBe(0);
      expect((await readFile(copy.path)).equals(original)).toBe(true);
      expect(rewritten.length).toBeLessThan(original.length);
    });
  });

  it('the judge catches a broken fork: a plain byte prefix of the branched session resumes the dead branch', async () => {
    const sc = s.branched!;
    const dry = rewindApp(['back', '2', '--json', '--dry-run', '--transcript', sc.transcript]);
    const { boundaryOffset } = JSON.parse(dry.stdout);
    const copy = await copySession(sc.transcript);
    const fh = await open(copy.path, 'r+');
    await fh.truncate(boundaryOffset);
    await fh.close();
    const history = await resumedHistory(sc, copy.id);
    expect(history).not.toEqual(expectedBefore(sc, 2));
    expect(history).toContain('user: BASH echo bashmade > c.txt');
  });

  it('why an in-place rewrite cannot keep a dead branch after the resume point: moved before the intended leaf, it is still what the CLI resumes', async () => {
    const sc = s.branched!;
    const t = toTimeline(await parseTranscriptFile(sc.transcript));
    const d = t.prompts.find((p) => p.text === 'WRITE d.txt branch two')!;
    const copy = await copySession(sc.transcript);
    const lines = (await readFile(copy.path, 'utf8')).split('\n').filter(Boolean);
    const uuidAt = (u: string | null) => lines.findIndex((l) => (JSON.parse(l) as { uuid?: string }).uuid === u);
    const at = uuidAt(d.uuid);
    const leafAt = uuidAt(d.parentUuid);
    // The file ends on the intended leaf; the dead branch (newer) sits before it.
    await writeFile(copy.path, `${[...lines.slice(0, leafAt), ...lines.slice(leafAt + 1, at), lines[leafAt]!].join('\n')}\n`);
    const history = await resumedHistory(sc, copy.id);
    expect(history).toContain('user: WRITE b.txt bee');
  });

  it("Claude's own file rewind (--rewind-files) works in a fork", async () => {
    const sc = s.linear!;
    const r = rewindApp(['back', '1', '--json', '--transcript', (await copySession(sc.transcript)).path, '--project', sc.project]);
    const fork = JSON.parse(r.stdout).forkSessionId as string;
    const t = toTimeline(await parseTranscriptFile(join(sc.transcript, '..', `${fork}.jsonl`)));
    const editPrompt = t.prompts.find((p) => p.text === 'EDIT notes.md alpha gamma')!;
    expect(await readFile(join(sc.project, 'notes.md'), 'utf8')).toBe('gamma beta\n');
    const tree = await rewindFilesTree(sc, fork, editPrompt.uuid);
    expect(tree['notes.md']).toBe('alpha beta\n');
    await writeFile(join(sc.project, 'notes.md'), 'gamma beta\n');
  });
});
