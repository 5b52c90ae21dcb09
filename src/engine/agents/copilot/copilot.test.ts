import { cp, mkdir, readFile, readdir, unlink, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { undoLatest } from '../../journal/undo.js';
import { splitJsonl } from '../jsonl.js';
import { adapterFor, adapterOfFile, findSession, rootsFor } from '../registry.js';
import { copilotOpenSessions } from './open.js';
import { copilot } from './adapter.js';
import { planCopilotCut, rewindCopilot } from './rewind.js';

const FIX = join(FIXTURES, 'copilot-1.0.102');
const ROOT = join(FIX, 'home', '.copilot');
const LINEAR_ID = '2c141a1f-92c1-4df3-af25-28014492b79e';
const REWOUND_ID = '9b53dc0a-a70e-4cda-b8ca-1378323e050b';
const FORK_ID = '6269854c-8652-41d5-a68c-0f23e91fb016';
const events = (root: string, id: string) => join(root, 'session-state', id, 'events.jsonl');
const LINEAR = events(ROOT, LINEAR_ID);
const BEFORE_REWIND = join(FIX, 'before-rewind', REWOUND_ID, 'events.jsonl');
const past = new Date(Date.now() - 3600_000);

const texts = async (path: string) => (await copilot.timeline(path)).prompts.map((p) => p.text);
const ids = (buf: Buffer) => splitJsonl(buf).lines.map((l) => l.value?.id);

/** A copy of the fixture's Copilot home (written long ago, so an in-place rewrite is not refused as live). */
async function copilotHome() {
  const home = await tempDir('copilot-home-');
  const root = join(home, '.copilot');
  await cp(ROOT, root, { recursive: true });
  for (const id of [LINEAR_ID, REWOUND_ID, FORK_ID]) await utimes(events(root, id), past, past);
  return { root, path: events(root, LINEAR_ID), project: await tempDir('copilot-project-') };
}

describe('GitHub Copilot CLI sessions: read', () => {
  it('a linear session: every prompt in order with its tools, files, tokens and model; the file is recognised as Copilot’s', async () => {
    const t = await copilot.timeline(LINEAR);
    expect(t.prompts.map((p) => p.text)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt', 'what files are in this project']);
    expect(t.session).toMatchObject({ agent: 'copilot', id: LINEAR_ID, cwd: '/home/dev/projects/linear', version: '1.0.102', model: 'fake-model' });
    expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['view', 'edit'], ['view', 'edit'], ['bash'], []]);
    expect(t.prompts[0]!.turn.filesTouched).toEqual(['/home/dev/projects/linear/a.txt']);
    expect(t.prompts[2]!.turn.toolCalls[0]!.summary).toBe('echo bashmade > c.txt');
    // Three model calls of 10 in / 5 out each (the scripted server's usage).
    expect(t.prompts[0]!.turn).toMatchObject({ inputTokens: 30, outputTokens: 15, model: 'fake-model', assistantMessages: 3 });
    expect(t.stats).toMatchObject({ prompts: 4, activePrompts: 4, deadPrompts: 0 });
    expect((await adapterOfFile(LINEAR)).id).toBe('copilot');
  });

  it("after Copilot's own /rewind (a resume event whose parentId names a removed event) the kept and the new prompts are read in file order", async () => {
    expect(await texts(events(ROOT, REWOUND_ID))).toEqual(['WRITE a.txt version one', 'WRITE d.txt after rewind']);
    expect(await texts(events(ROOT, FORK_ID))).toEqual(['WRITE a.txt version one', 'forked prompt']);
  });

  it('one turn, item by item: the calls with their arguments and results', async () => {
    const t = await copilot.timeline(LINEAR);
    const turn = await copilot.turn(LINEAR, t.prompts[0]!.uuid);
    expect(turn.text).toBe('WRITE a.txt version one');
    expect(turn.items.map((i) => `${i.kind}:${i.title}`)).toEqual(['tool-call:view', 'tool-result:result', 'tool-call:edit', 'tool-result:result', 'text:Copilot']);
    expect(turn.items[0]!.body).toContain('/home/dev/projects/linear/a.txt');
    await expect(copilot.turn(LINEAR, 'nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists, finds by id prefix and picks the newest session of a folder by the cwd its events record', async () => {
    const env = await copilotHome();
    await utimes(events(env.root, FORK_ID), new Date(), new Date());
    const list = await copilot.summarize(env.root);
    expect(list.map((s) => [s.id, s.promptCount]).sort()).toEqual([[FORK_ID, 2], [LINEAR_ID, 4], [REWOUND_ID, 2]].sort());
    expect(list[0]!.id).toBe(FORK_ID);
    expect(await copilot.find('2c141a', env.root)).toBe(env.path);
    expect(await copilot.newestFor('/home/dev/projects/rewind', env.root)).toBe(events(env.root, FORK_ID));
    expect(await copilot.newestFor('/home/dev/projects/linear', env.root)).toBe(env.path);
    expect((await copilot.sessionFiles(env.root)).map((f) => f.sessionId).sort()).toEqual([FORK_ID, LINEAR_ID, REWOUND_ID].sort());
    const found = await findSession(LINEAR_ID, rootsFor({ HOME: '/nonexistent', COPILOT_HOME: env.root }));
    expect(found).toMatchObject({ path: env.path });
    expect(found!.adapter.id).toBe('copilot');
  });

  it('the root is COPILOT_HOME, else ~/.copilot', () => {
    expect(copilot.root({ HOME: '/h' })).toBe(join('/h', '.copilot'));
    expect(copilot.root({ HOME: '/h', COPILOT_HOME: '/c' })).toBe('/c');
  });
});

describe('GitHub Copilot CLI sessions: rewind', () => {
  it("the in-place cut is Copilot's own /rewind cut: the events before the prompt's user.message", async () => {
    const before = await readFile(BEFORE_REWIND);
    const t = await copilot.timeline(BEFORE_REWIND);
    const plan = planCopilotCut(before, BEFORE_REWIND, { promptUuid: t.prompts[1]!.uuid });
    const ours = ids(plan.inPlace);
    // Copilot rewrote the events it kept (same ids, reformatted numbers), then appended its resume.
    expect(ids(await readFile(events(ROOT, REWOUND_ID))).slice(0, ours.length)).toEqual(ours);
    expect(plan.prompts.map((p) => p.text)).toEqual(['WRITE a.txt version two', 'BASH echo bashmade > c.txt']);
    const s = plan.statementFor!('in-place');
    expect(s.droppedLive.map((p) => p.text)).toEqual(['WRITE a.txt version two', 'BASH echo bashmade > c.txt']);
    expect(s.keptEnd?.text).toBe('WRITE a.txt version one');
  });

  it('fork: a new session folder holding the events before the prompt under the new id; the original untouched; undo removes it', async () => {
    const env = await copilotHome();
    const before = await readFile(env.path);
    const r = await rewindCopilot({ transcriptPath: env.path, n: 2, mode: 'fork', projectRoot: env.project });
    expect(r.forkPath).toBe(events(env.root, r.forkSessionId!));
    expect(r.prompts.map((p) => p.text)).toEqual(['BASH echo bashmade > c.txt', 'what files are in this project']);
    expect(r.statement!.droppedLive.map((p) => p.text)).toEqual(['BASH echo bashmade > c.txt', 'what files are in this project']);
    expect(await readFile(env.path)).toEqual(before);
    const fork = await copilot.timeline(r.forkPath!);
    expect(fork.session.id).toBe(r.forkSessionId);
    expect(fork.prompts.map((p) => p.text)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two']);
    // As Copilot's own fork does: the session's id changes, the usage accounting keeps naming its source.
    expect(await readFile(r.forkPath!, 'utf8')).not.toContain(`"sessionId":"${LINEAR_ID}"`);
    expect(copilot.resumeCommand(r.forkSessionId!)).toBe(`copilot --resume ${r.forkSessionId}`);
    await undoLatest(env.project, { agentRoots: [env.root] });
    expect(existsSync(dirname(r.forkPath!))).toBe(false);
    expect((await readdir(join(env.root, 'session-state'))).filter((n) => !n.startsWith('.')).sort()).toEqual([FORK_ID, LINEAR_ID, REWOUND_ID].sort());
  });

  it('in place: the same file ends before the prompt, a backup first; undo puts it back', async () => {
    const env = await copilotHome();
    const before = await readFile(env.path);
    const dry = await rewindCopilot({ transcriptPath: env.path, n: 3, mode: 'in-place', projectRoot: env.project, dryRun: true });
    expect(dry.statement!.droppedLive.map((p) => p.text)).toEqual(['WRITE a.txt version two', 'BASH echo bashmade > c.txt', 'what files are in this project']);
    expect(await readFile(env.path)).toEqual(before);
    const r = await rewindCopilot({ transcriptPath: env.path, n: 3, mode: 'in-place', projectRoot: env.project });
    expect(await readFile(env.path)).toEqual(before.subarray(0, r.boundaryOffset));
    expect(await texts(env.path)).toEqual(['WRITE a.txt version one']);
    expect(await readFile(r.backupPath!)).toEqual(before);
    await undoLatest(env.project, { agentRoots: [env.root] });
    expect(await readFile(env.path)).toEqual(before);
  });

  it('refuses to cut before the first prompt, and a file that is not a Copilot session', async () => {
    const env = await copilotHome();
    const t = await copilot.timeline(env.path);
    await expect(rewindCopilot({ transcriptPath: env.path, n: 4, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS' });
    await expect(rewindCopilot({ transcriptPath: env.path, promptUuid: t.prompts[0]!.uuid, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS' });
    const other = join(env.root, 'session-state', 'x', 'events.jsonl');
    await mkdir(dirname(other));
    await cp(env.path, other);
    const lines = (await readFile(other, 'utf8')).split('\n').slice(1).join('\n');
    await writeFile(other, lines);
    expect(() => planCopilotCut(Buffer.from(lines), other, { n: 1 })).toThrow(/not a Copilot session/);
    expect(copilot.owns(other, Buffer.from(lines.split('\n')[0]!))).toBe(false);
  });
});

describe('GitHub Copilot CLI sessions: search', () => {
  it('names every prompt line by its event id', async () => {
    const t = await copilot.timeline(LINEAR);
    const { lines } = splitJsonl(await readFile(LINEAR));
    const buf = await readFile(LINEAR);
    // Search parses only the lines that carry the marker.
    const marked = lines.filter((l) => buf.subarray(l.offset, l.offset + l.length).includes(copilot.promptLines.marker));
    const found = marked.map((l) => copilot.promptLines.prompt(l.value!, l.offset)).filter(Boolean);
    expect(found.map((p) => [p!.uuid, p!.text])).toEqual(t.prompts.map((p) => [p.uuid, p.text]));
  });
});

describe('GitHub Copilot CLI sessions: open in a running Copilot', () => {
  it('its inuse.<pid>.lock of a live Copilot process marks the session open; an in-place rewrite is refused (--force too), a fork goes on; a stale marker is ignored', async () => {
    const env = await copilotHome();
    // A stand-in Copilot process: alive, with "copilot" in its command line, as the real one has.
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'copilot'], { stdio: 'ignore' });
    try {
      const marker = join(dirname(env.path), `inuse.${holder.pid}.lock`);
      await writeFile(marker, String(holder.pid));
      const guarded = adapterFor('copilot');
      expect(await copilot.isLive(env.path)).toBe(true);
      expect(await copilotOpenSessions(dirname(dirname(dirname(env.path))))).toEqual([{ sessionId: basename(dirname(env.path)), cwd: null, pid: holder.pid, status: 'unknown', since: expect.any(String) }]);
      const before = await readFile(env.path);
      for (const force of [false, true]) {
        await expect(guarded.rewind!({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project, force })).rejects.toMatchObject({ code: 'SESSION_OPEN', message: expect.stringContaining(`pid ${holder.pid}`) });
      }
      expect(await readFile(env.path)).toEqual(before);
      expect((await guarded.rewind!({ transcriptPath: env.path, n: 1, mode: 'fork', projectRoot: env.project })).forkPath).toBeTruthy();
      await unlink(marker);
    } finally {
      holder.kill('SIGKILL');
    }
    await utimes(env.path, past, past);
    // A pid no process has (above Linux's pid_max): the marker of a Copilot that was killed.
    await writeFile(join(dirname(env.path), 'inuse.2147483646.lock'), '2147483646');
    expect(await copilot.isLive(env.path)).toBe(false);
    await adapterFor('copilot').rewind!({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project });
  });
});
