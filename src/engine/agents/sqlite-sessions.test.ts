import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapterFor } from './registry.js';
import { openSqlite } from '../io/sqlite-read.js';
import { sessionRef, sessionRows } from './sqlite-sessions.js';
import { planStoreRewind } from './sqlite-rewind.js';
import { tempDir } from '../../../test/temp.js';

// Real stores written by OpenCode 1.18.33 and Kilo 7.7.7 (test/fixtures/*/README.md says how, in order).
const FIX = join(import.meta.dirname, '../../../test/fixtures');

const CASES = [
  { agent: 'opencode', fixture: 'opencode-1.18.33', dir: 'opencode', db: 'opencode.db', linear: 'ses_de19e15c0ffejFs1eUcW7jGVjR', undone: 'ses_de19c8d14ffeNUWBFQ6i6VpS1B', fork: 'ses_de19b3de8ffe0mbKeecBnDbVRQ' },
  { agent: 'kilo', fixture: 'kilo-7.7.7', dir: 'kilo', db: 'kilo.db', linear: 'ses_de19ab0aaffel1veBywVgF8mbs', undone: 'ses_de1988fffffeeTd4jgQttDTfBO', fork: 'ses_de194e1dcffewXyyEcEKLuwpdn' },
] as const;

describe.each(CASES)('$agent store', (c) => {
  const a = adapterFor(c.agent);
  let root: string;
  let pendingRoot: string;
  beforeAll(async () => {
    const home = await tempDir(`${c.agent}-fixture-`);
    await cp(join(FIX, c.fixture), home, { recursive: true });
    root = a.root({ HOME: join(home, 'home') });
    pendingRoot = join(home, 'pending-revert');
  });

  it('lists every session, newest first, with its prompts counted; finds one by id or prefix', async () => {
    const list = await a.summarize(root);
    expect(list.map((s) => [s.id, s.promptCount])).toEqual([
      [c.fork, 3],
      [c.undone, 2],
      [c.linear, 4],
    ]);
    expect(list[0]!.transcriptPath).toBe(sessionRef(join(root, c.db), c.fork));
    expect(a.owns(list[0]!.transcriptPath, null)).toBe(true);
    expect(await a.find(c.linear.slice(0, 12), root)).toBe(sessionRef(join(root, c.db), c.linear));
    expect(await a.find('ses_nothing', root)).toBeNull();
    expect(await a.newestFor('/home/dev/projects/rewind', root)).toBe(sessionRef(join(root, c.db), c.fork));
    expect((await a.sessionFiles(root)).map((f) => f.sessionId)).toEqual([c.fork, c.undone, c.linear]);
  });

  it('reads every prompt with its tools, files, tokens and model; the turn item by item', async () => {
    const path = sessionRef(join(root, c.db), c.linear);
    const t = await a.timeline(path);
    expect(t.session).toMatchObject({ id: c.linear, agent: c.agent, cwd: '/home/dev/projects/linear', model: 'fake-model' });
    expect(t.prompts.map((p) => p.text)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt', 'what files are in this project']);
    expect(t.prompts.map((p) => p.number)).toEqual([1, 2, 3, 4]);
    expect(t.prompts.map((p) => p.turn.toolCalls.map((x) => x.name))).toEqual([['read', 'write'], ['read', 'write'], ['bash'], []]);
    expect(t.prompts[0]!.turn.filesTouched).toEqual(['/home/dev/projects/linear/a.txt']);
    // c.txt was made by the shell: only the step's patch part names it.
    expect(t.prompts[2]!.turn.filesTouched).toEqual(['/home/dev/projects/linear/c.txt']);
    expect(t.prompts[0]!.turn.assistantMessages).toBe(3);
    expect(t.prompts.reduce((n, p) => n + p.turn.inputTokens, 0)).toBe(t.session.tokens!.input);
    expect(t.session.tokens!.input).toBeGreaterThan(0);
    const turn = await a.turn(path, t.prompts[0]!.uuid);
    expect(turn.items.map((i) => [i.kind, i.title])).toEqual([
      ['tool-call', 'read'],
      ['tool-result', 'result'],
      ['tool-call', 'write'],
      ['tool-result', 'result'],
      ['text', a.displayName],
    ]);
    expect(turn.items[2]!.body).toContain('version one');
  });

  it('a revert the agent staged: the prompts it takes back are not on the live path, and a rewind names them', async () => {
    const path = sessionRef(join(pendingRoot, c.db), c.undone);
    const t = await a.timeline(path);
    expect(t.prompts.map((p) => [p.text, p.number])).toEqual([
      ['WRITE a.txt version one', 1],
      ['WRITE a.txt version two', null],
      ['BASH echo bashmade > c.txt', null],
    ]);
    expect(t.stats.activePrompts).toBe(1);
  });

  it('plans a rewind at any prompt but the first, naming every prompt removed', async () => {
    const s = await openSqlite(join(root, c.db));
    const rows = sessionRows(s, c.linear)!;
    s.close();
    const spec = { agent: c.agent, name: a.displayName };
    const plan = planStoreRewind(spec, 'x', 0, rows.session, rows.messages, { n: 2, mode: 'fork' });
    expect(plan.target.text).toBe('BASH echo bashmade > c.txt');
    expect(plan.statement.keptEnd?.text).toBe('WRITE a.txt version two');
    expect(plan.statement.droppedLive.map((p) => p.text)).toEqual(['BASH echo bashmade > c.txt', 'what files are in this project']);
    const byId = planStoreRewind(spec, 'x', 0, rows.session, rows.messages, { promptUuid: plan.timeline.prompts[1]!.uuid, mode: 'in-place' });
    expect(byId.statement.droppedLive.map((p) => p.text)).toEqual(['WRITE a.txt version two', 'BASH echo bashmade > c.txt', 'what files are in this project']);
    expect(() => planStoreRewind(spec, 'x', 0, rows.session, rows.messages, { n: 4, mode: 'fork' })).toThrow(/nothing would be left/);
    expect(() => planStoreRewind(spec, 'x', 0, rows.session, rows.messages, { promptUuid: plan.timeline.prompts[0]!.uuid, mode: 'fork' })).toThrow(/first prompt/);
  });

  it('in place on a session with a staged revert: the prompts it already takes back are named too', async () => {
    const s = await openSqlite(join(pendingRoot, c.db));
    const rows = sessionRows(s, c.undone)!;
    s.close();
    // Only one live prompt: nothing to go back to; the staged ones cannot be targets.
    expect(() => planStoreRewind({ agent: c.agent, name: a.displayName }, 'x', 0, rows.session, rows.messages, { n: 1, mode: 'in-place' })).toThrow(/nothing would be left/);
    const staged = rows.messages.find((m) => m.id === rows.session.revertFrom)!;
    expect(() => planStoreRewind({ agent: c.agent, name: a.displayName }, 'x', 0, rows.session, rows.messages, { promptUuid: staged.id, mode: 'in-place' })).toThrow(/already taken back/);
  });
});

describe.each(CASES)('$agent: a session written by a newer release', (c) => {
  it('is read only (its session.version is newer than every judged one): the reason said, a rewind refused before anything is written', async () => {
    const a = adapterFor(c.agent);
    const home = await tempDir(`${c.agent}-judged-`);
    await cp(join(FIX, c.fixture), home, { recursive: true });
    const root = a.root({ HOME: join(home, 'home') });
    const db = join(root, c.db);
    const path = sessionRef(db, c.linear);
    expect(await a.readOnlyReason!(path)).toBeNull();
    const { Database } = (await import('node-sqlite3-wasm')).default;
    const h = new Database(db, { fileMustExist: true });
    try {
      h.exec('pragma locking_mode=exclusive');
      h.run('update session set version = ? where id = ?', ['999.0.0', c.linear]);
    } finally {
      h.close();
    }
    const why = await a.readOnlyReason!(path);
    expect(why).toMatch(/read only/);
    expect(why).toContain('999.0.0');
    const t = await a.timeline(path);
    await expect(a.rewind!({ transcriptPath: path, promptUuid: t.prompts[1]!.uuid, mode: 'fork', dryRun: true } as Parameters<NonNullable<typeof a.rewind>>[0])).rejects.toThrow(/read only/);
  });
});
