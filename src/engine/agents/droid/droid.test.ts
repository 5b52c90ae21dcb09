import { cp, mkdir, readFile, utimes, writeFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { readJournal } from '../../journal/record.js';
import { undoLatest } from '../../journal/undo.js';
import { listDroidSessions, readDroidTimeline, findDroidSession } from './discover.js';
import { droidTimeline } from './parse.js';
import { rewindDroid } from './rewind.js';

const DROID = join(FIXTURES, 'droid-real');
const LINEAR_ID = '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e';
const PROMPTS = ['WRITE a.txt version one', 'WRITE b.txt bee', 'BASH echo bashmade > c.txt', 'EDIT notes.md alpha gamma', 'just chatting'];
const past = new Date(Date.now() - 3600_000);

/** A Droid home holding the real 5-prompt session (and its settings) under its project folder. */
async function droidHome() {
  const home = await tempDir('droid-home-');
  const root = join(home, '.factory');
  const dir = join(root, 'sessions', '-home-dev-projects-linear');
  await mkdir(dir, { recursive: true });
  for (const f of [`${LINEAR_ID}.jsonl`, `${LINEAR_ID}.settings.json`, '4ff43fa7-7b7f-4da8-afc9-f88d5dd279bd.jsonl']) await cp(join(DROID, f), join(dir, f));
  const path = join(dir, `${LINEAR_ID}.jsonl`);
  await utimes(path, past, past);
  return { home, root, dir, path, project: await tempDir('droid-project-') };
}

describe('Droid sessions: read', () => {
  it('the real session: five prompts in order, the synthetic context message is not one', async () => {
    const t = await readDroidTimeline(join(DROID, `${LINEAR_ID}.jsonl`));
    expect(t.session).toMatchObject({ id: LINEAR_ID, agent: 'droid', cwd: '/home/dev/projects/linear', model: 'custom:Fake-0', tokens: { input: 90, output: 45 } });
    expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS);
    expect(t.prompts.every((p) => p.active && p.lane === 0)).toBe(true);
    expect(t.prompts[0]!.turn.toolCalls).toEqual([{ name: 'Create', summary: '/home/dev/projects/linear/a.txt', filePath: '/home/dev/projects/linear/a.txt' }]);
    expect(t.prompts[0]!.turn.filesTouched).toEqual(['/home/dev/projects/linear/a.txt']);
    expect(t.prompts[2]!.turn.toolCalls[0]).toMatchObject({ name: 'Execute', summary: 'echo bashmade > c.txt' });
    expect(t.issues).toEqual([]);
  });

  it('a torn line is an issue, not a failure', () => {
    const buf = Buffer.from('{"type":"session_start","id":"x","cwd":"/p"}\n{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}\n{not json\n');
    const t = droidTimeline(buf, '/s/x.jsonl');
    expect(t.prompts.map((p) => p.text)).toEqual(['hi']);
    expect(t.issues).toHaveLength(1);
  });

  it('lists sessions under the root with forks named by session_start.parent, and finds them by prefix', async () => {
    const env = await droidHome();
    const list = await listDroidSessions({ root: env.root });
    const rows = list.map((s) => [s.id, s.promptCount, s.forkOf]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual([
      [LINEAR_ID, 5, null],
      ['4ff43fa7-7b7f-4da8-afc9-f88d5dd279bd', 6, LINEAR_ID],
    ]);
    expect(list.every((s) => s.agent === 'droid')).toBe(true);
    expect(await listDroidSessions({ root: env.root, project: '/elsewhere' })).toEqual([]);
    expect(await findDroidSession('16dfb', env.root)).toBe(env.path);
    expect(await findDroidSession('nope', env.root)).toBeNull();
  });
});

describe('Droid sessions: rewind', () => {
  it('fork: the lines before the prompt under a new session_start.id; the original is untouched; undo removes it', async () => {
    const env = await droidHome();
    const before = await readFile(env.path);
    const r = await rewindDroid({ transcriptPath: env.path, n: 2, mode: 'fork', projectRoot: env.project });
    expect(r.prompts.map((p) => p.text)).toEqual(PROMPTS.slice(3));
    expect(await readFile(env.path)).toEqual(before);
    const fork = await readFile(r.forkPath!);
    const cut = before.subarray(0, r.boundaryOffset).toString('utf8').split('\n');
    const lines = fork.toString('utf8').split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({ ...JSON.parse(cut[0]!), id: r.forkSessionId });
    expect(lines.slice(1)).toEqual(cut.slice(1));
    const t = await readDroidTimeline(r.forkPath!);
    expect(t.session.id).toBe(r.forkSessionId);
    expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS.slice(0, 3));
    expect((await readJournal(env.project)).map((j) => j.kind)).toEqual(['fork']);
    const u = await undoLatest(env.project, { agentRoots: [env.root] });
    // Named in words and a short id, never a path or a whole uuid.
    expect(u.summary).toBe(`Removed fork ${r.forkSessionId!.slice(0, 8)} (kept aside in Rewind's store)`);
    await expect(readFile(r.forkPath!)).rejects.toThrow();
  });

  it('in place: the same cut in the same file, a backup first, undo puts it back', async () => {
    const env = await droidHome();
    const before = await readFile(env.path);
    const dry = await rewindDroid({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project, dryRun: true });
    expect(dry.backupPath).toContain('transcript-backup');
    expect(await readFile(env.path)).toEqual(before);
    const r = await rewindDroid({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project });
    expect(await readFile(env.path)).toEqual(before.subarray(0, r.boundaryOffset));
    expect(await readFile(r.backupPath!)).toEqual(before);
    expect((await readDroidTimeline(env.path)).prompts.map((p) => p.text)).toEqual(PROMPTS.slice(0, 4));
    await undoLatest(env.project, { agentRoots: [env.root] });
    expect(await readFile(env.path)).toEqual(before);
  });

  it('refuses what it cannot do, with one line and nothing written', async () => {
    const env = await droidHome();
    const before = await readFile(env.path);
    await expect(rewindDroid({ transcriptPath: env.path, n: 5, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS' });
    await expect(rewindDroid({ transcriptPath: env.path, n: 9, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS' });
    await expect(rewindDroid({ transcriptPath: join(env.dir, 'missing.jsonl'), n: 1, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NO_TRANSCRIPT' });
    // Written a moment ago: the agent may be running.
    await appendFile(env.path, '');
    await utimes(env.path, new Date(), new Date());
    await expect(rewindDroid({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project })).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE' });
    // The agent appends while we work: nothing is replaced.
    await utimes(env.path, past, past);
    await expect(
      rewindDroid({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project, beforeRevalidate: () => appendFile(env.path, '{"type":"message"}\n') }),
    ).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE' });
    expect((await readFile(env.path)).subarray(0, before.length)).toEqual(before);
    const foreign = join(env.dir, 'foreign.jsonl');
    await writeFile(foreign, '{"type":"user","uuid":"u"}\n');
    await expect(rewindDroid({ transcriptPath: foreign, n: 1, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT' });
    expect(await readJournal(env.project)).toEqual([]);
  });
});

describe('Droid sessions: where the journal goes', () => {
  it('a fork of a session whose folder is not on this machine writes no journal and creates no folder', async () => {
    const env = await droidHome();
    const text = (await readFile(env.path, 'utf8')).split('/home/dev/projects/linear').join(join(env.project, 'gone'));
    await writeFile(env.path, text);
    await utimes(env.path, past, past);
    const r = await rewindDroid({ transcriptPath: env.path, n: 1, mode: 'fork', projectRoot: null });
    expect(r.journalId).toBeNull();
    expect(r.warnings).toContain('no project folder known: this fork is not in an undo journal');
    await expect(readFile(join(env.project, 'gone', '.agent', 'rewind', 'journal.jsonl'))).rejects.toThrow();
    await expect(rewindDroid({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: null })).rejects.toMatchObject({ code: 'USAGE' });
  });
});
