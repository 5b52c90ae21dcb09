import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapterFor } from './registry.js';
import { sessionRef } from './sqlite-sessions.js';
import { snapshotOfPrompt } from './sqlite-code-history.js';
import { hasGit, restoreFromAgent, treeOf } from '../../../test/agent-store.js';
import { tempDir } from '../../../test/temp.js';
import { undoLatest } from '../journal/undo.js';

// Real stores and shadow gits written by OpenCode 1.18.33 and Kilo 7.7.7 (test/fixtures/*/README.md).
// The linear session: WRITE a.txt version one, WRITE a.txt version two, BASH echo bashmade > c.txt, a chat prompt;
// its project held a.txt "v0" and notes.md, committed.
const FIX = join(import.meta.dirname, '../../../test/fixtures');
const CASES = [
  { agent: 'opencode', fixture: 'opencode-1.18.33', db: 'opencode.db', linear: 'ses_de19e15c0ffejFs1eUcW7jGVjR', name: 'OpenCode' },
  { agent: 'kilo', fixture: 'kilo-7.7.7', db: 'kilo.db', linear: 'ses_de19ab0aaffel1veBywVgF8mbs', name: 'Kilo CLI' },
] as const;
const HAS_GIT = hasGit();

/**
 * The fixture's store in a temp home with the linear session's project moved to a temp folder (its
 * worktree and directory rewritten, as if the user had moved it): the project holds the final tree
 * plus a file the user made by hand afterwards.
 */
async function storeHome(c: (typeof CASES)[number]) {
  const a = adapterFor(c.agent);
  const home = await tempDir(`${c.agent}-snap-`);
  await cp(join(FIX, c.fixture), home, { recursive: true });
  const root = a.root({ HOME: join(home, 'home') });
  const db = join(root, c.db);
  const project = join(home, 'work', 'linear');
  await mkdir(project, { recursive: true });
  await cp(join(FIX, c.fixture, 'projects', 'linear'), project, { recursive: true });
  await writeFile(join(project, 'later.txt'), 'made after the session\n');
  const { Database } = (await import('node-sqlite3-wasm')).default;
  const h = new Database(db, { fileMustExist: true });
  try {
    h.exec('pragma locking_mode=exclusive');
    const pid = (h.get('select project_id from session where id = ?', [c.linear]) as { project_id: string }).project_id;
    h.run('update project set worktree = ? where id = ?', [project, pid]);
    h.run('update session set directory = ? where id = ?', [project, c.linear]);
  } finally {
    h.close();
  }
  await projectGit(project, join(root, 'snapshot'));
  const path = sessionRef(db, c.linear);
  const prompts = (await a.timeline(path)).prompts;
  return { a, root, db, project, path, prompts, snapshots: join(root, 'snapshot') };
}

/**
 * The project's own git, as the session began (a.txt "v0" and notes.md committed): OpenCode's shadow
 * git borrows the project's objects (`objects/info/alternates`), so the files committed in the
 * project are only there. The recorded alternates named the recording machine's project: pointed at
 * this one. (The recorded shadow gits lost their empty `refs/` folder in this repository: put back.)
 */
async function projectGit(project: string, snapshots: string): Promise<void> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: ['pipe', 'pipe', 'ignore'], encoding: 'utf8', input: '' });
  git('init', '-q');
  for (const [p, text] of [['a.txt', 'v0\n'], ['notes.md', 'alpha beta\n']]) {
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: project, input: text, encoding: 'utf8' }).trim();
    git('update-index', '--add', '--cacheinfo', `100644,${blob},${p}`);
  }
  // The tree of its first commit: the agent's first snapshot is that same tree.
  expect(git('write-tree').trim()).toBe('5dbd8ee8b39f094577f6a2cc7cac5df6197a4387');
  for (const pdir of await readdir(snapshots)) {
    for (const g of await readdir(join(snapshots, pdir))) {
      await mkdir(join(snapshots, pdir, g, 'refs'), { recursive: true });
      const alt = join(snapshots, pdir, g, 'objects', 'info', 'alternates');
      if (existsSync(alt)) await writeFile(alt, `${join(project, '.git', 'objects')}\n`);
    }
  }
}

/** The project's files but its own `.git`. */
const files = async (dir: string) => Object.fromEntries(Object.entries(await treeOf(dir)).filter(([p]) => !p.startsWith('.git/')));

/** Every file under the shadow gits, with its size and mtime: a read must leave them as they were. */
async function listing(dir: string): Promise<string> {
  const out: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) out.push(join(e.parentPath, e.name));
  return out.sort().join('\n');
}

describe.skipIf(!HAS_GIT).each(CASES)("$agent's own snapshots (its shadow git) as the code store", (c) => {
  it('the history is labelled as the agent\'s own record', () => {
    expect(adapterFor(c.agent).codeHistory?.label).toBe(`${c.name}'s own snapshots`);
  });

  it('before each prompt: the whole tree as the turn found it; files made since are deleted, undo puts all back; the shadow git is not written', async () => {
    const h = await storeHome(c);
    const untouched = await listing(h.snapshots);
    const final = await files(h.project);
    const dry = await restoreFromAgent(h.project, h.path, h.prompts[1]!.uuid, { dryRun: true });
    expect(dry.preview.target).toMatchObject({ source: 'agent', agent: c.agent });
    expect(dry.preview.plan.changes.map((x) => [x.action, x.path])).toEqual([['modify', 'a.txt'], ['delete', 'c.txt'], ['delete', 'later.txt']]);
    await restoreFromAgent(h.project, h.path, h.prompts[1]!.uuid, { force: true });
    expect(await files(h.project)).toEqual({ 'a.txt': 'version one\n', 'notes.md': 'alpha beta\n' });
    await undoLatest(h.project);
    expect(await files(h.project)).toEqual(final);
    await restoreFromAgent(h.project, h.path, h.prompts[0]!.uuid, { force: true });
    expect(await files(h.project)).toEqual({ 'a.txt': 'v0\n', 'notes.md': 'alpha beta\n' });
    await undoLatest(h.project);
    await restoreFromAgent(h.project, h.path, h.prompts[3]!.uuid, { force: true });
    expect(await files(h.project)).toEqual({ 'a.txt': 'version two\n', 'c.txt': 'bashmade\n', 'notes.md': 'alpha beta\n' });
    expect(await listing(h.snapshots)).toBe(untouched);
  });

  it('no shadow git (snapshots off, not a git project): nothing from the agent, the caller says so', async () => {
    const h = await storeHome(c);
    await rm(h.snapshots, { recursive: true });
    const err = await restoreFromAgent(h.project, h.path, h.prompts[1]!.uuid).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'NO_CHECKPOINT', message: expect.stringContaining(`${c.name}'s own snapshots: nothing for that prompt`) });
  });

  it('a snapshot missing from the shadow git is one line and nothing is written', async () => {
    const h = await storeHome(c);
    for (const pdir of await readdir(h.snapshots)) {
      for (const g of await readdir(join(h.snapshots, pdir))) {
        await rm(join(h.snapshots, pdir, g, 'objects'), { recursive: true });
        await mkdir(join(h.snapshots, pdir, g, 'objects'));
      }
    }
    await rm(join(h.project, '.git'), { recursive: true });
    const before = await files(h.project);
    const err = await restoreFromAgent(h.project, h.path, h.prompts[1]!.uuid).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'NOT_FOUND' });
    expect((err as Error).message).toMatch(new RegExp(`^${c.name}'s snapshot [0-9a-f]{12} is missing from .*: nothing was changed$`));
    expect(await files(h.project)).toEqual(before);
  });

  it('a project that is a subfolder of the worktree: files outside it are named and left alone', async () => {
    const h = await storeHome(c);
    await mkdir(join(h.project, 'sub'));
    await writeFile(join(h.project, 'sub', 'x.txt'), 'x\n');
    const r = await restoreFromAgent(join(h.project, 'sub'), h.path, h.prompts[1]!.uuid, { dryRun: true });
    expect(r.preview.outside.map((p) => p.slice(h.project.length + 1)).sort()).toEqual(['a.txt', 'notes.md']);
    expect(r.preview.plan.changes).toEqual([]);
    expect(r.preview.unknown!.join('\n')).toContain('only the files it holds are restored');
  });
});

describe('snapshotOfPrompt', () => {
  const m = (id: string, role: string, parts: Record<string, unknown>[], parentID?: string) => ({ id, created: 0, data: { role, ...(parentID ? { parentID } : {}) }, parts });
  const tree = (n: string) => n.repeat(40);
  it("is the first step-start snapshot of the prompt's own turn, never a later prompt's", () => {
    const msgs = [
      m('msg_1', 'user', [{ type: 'text', text: 'one' }]),
      m('msg_2', 'assistant', [{ type: 'step-start' }, { type: 'step-start', snapshot: tree('a') }, { type: 'step-start', snapshot: tree('b') }], 'msg_1'),
      m('msg_3', 'user', [{ type: 'text', text: 'two' }]),
      m('msg_4', 'assistant', [{ type: 'text', text: 'no step' }], 'msg_3'),
      m('msg_5', 'user', [{ type: 'text', text: 'three' }]),
      m('msg_6', 'assistant', [{ type: 'step-start', snapshot: '--upload-pack=x' }], 'msg_5'),
    ];
    expect(snapshotOfPrompt(msgs, 'msg_1')).toBe(tree('a'));
    expect(snapshotOfPrompt(msgs, 'msg_3')).toBeNull();
    expect(snapshotOfPrompt(msgs, 'msg_5')).toBeNull();
    expect(snapshotOfPrompt(msgs, 'msg_9')).toBeNull();
  });
});
