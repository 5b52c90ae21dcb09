import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { hookedSession } from '../../test/hooked-session.js';
import { snapshotTree } from '../../test/tree.js';
import { captureCli } from '../../test/cli-capture.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const cli = (argv: string[], env: NodeJS.ProcessEnv) => captureCli(argv, { env });

describe('rewind-app revert, redo, history and undo ID', () => {
  it('refuses a conflicted revert with exit 6 until --take chooses, then lists, undoes, redoes and undoes by id', async () => {
    const x = await hookedSession(dirs);
    const env = { HOME: '/nonexistent-home', CLAUDE_CONFIG_DIR: x.home, REWIND_NO_FORWARD: '1' };
    const p = ['--project', x.project];
    const uuid = x.prompts[0]!.uuid;
    const original = await snapshotTree(x.project);

    const dry = await cli(['revert', uuid, '--dry-run', '--json', ...p], env);
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.out) as { unresolved: string[]; conflicts: { path: string; current: string; before: string }[]; changes: { path: string }[] };
    expect(plan.unresolved).toEqual(['a.txt']);
    expect(plan.conflicts[0]).toMatchObject({ path: 'a.txt', current: 'version two\n', before: 'v0\n' });
    expect(plan.changes.map((c) => c.path)).toEqual(['shared.ts']);

    for (const extra of [[], ['--force']]) {
      const refused = await cli(['revert', uuid, ...extra, ...p], env);
      expect(refused.code).toBe(6);
      expect(refused.err).toMatch(/a\.txt.*--take/);
    }
    expect(await snapshotTree(x.project)).toEqual(original);
    expect((await cli(['revert', uuid, '--take', 'sideways', ...p], env)).code).toBe(2);

    const done = await cli(['revert', uuid, '--take', 'a.txt=before', ...p], env);
    expect(done.code).toBe(0);
    expect(done.out).toMatch(/Reverted prompt .*: 2 files/);
    const reverted = await snapshotTree(x.project);

    const h = await cli(['history', '--json', ...p], env);
    const list = JSON.parse(h.out) as { entries: { id: string; kind: string; undoable: boolean; files: string[] }[] };
    expect(list.entries.map((e) => [e.kind, e.undoable])).toEqual([['revert', true]]);
    expect(list.entries[0]!.files).toEqual(['a.txt', 'shared.ts']);

    expect((await cli(['undo', ...p], env)).code).toBe(0);
    expect(await snapshotTree(x.project)).toEqual(original);
    const redone = await cli(['redo', ...p], env);
    expect(redone.code).toBe(0);
    expect(redone.out).toMatch(/Redid the revert/);
    expect(await snapshotTree(x.project)).toEqual(reverted);
    expect((await cli(['redo', ...p], env)).err).toMatch(/nothing to redo/);

    const undoById = await cli(['undo', list.entries[0]!.id.slice(0, 8), ...p], env);
    expect(undoById.code).toBe(0);
    expect(await snapshotTree(x.project)).toEqual(original);
    const text = await cli(['history', ...p], env);
    expect(text.out).toMatch(/Undid: Reverted the changes of prompt/);
    expect(text.out).toMatch(/cannot be undone: already undone/);
  });
});
