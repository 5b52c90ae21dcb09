import { mkdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookedSession } from '../../../test/hooked-session.js';
import { snapshotTree } from '../../../test/tree.js';
import { undoLatest } from '../journal/undo.js';
import { listCheckpoints } from './manifest.js';
import { resolveRestoreTarget, restore } from './restore.js';
import { revert, type Take } from './revert.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/**
 * The user's own edits between prompts, to files no prompt touches: before #2 two new files in a
 * new folder, before #3 a change, before #4 a deletion, before #5 a rename.
 */
async function handEdit(project: string, beforePrompt: number): Promise<void> {
  if (beforePrompt === 1) {
    await mkdir(join(project, 'hand', 'deep'), { recursive: true });
    await writeFile(join(project, 'hand', 'deep', 'a.md'), 'hand a\n');
    await writeFile(join(project, 'hand', 'b.md'), 'hand b\n');
  }
  if (beforePrompt === 2) await writeFile(join(project, 'src', 'keep.ts'), 'export const keep = 2; // by hand\n');
  if (beforePrompt === 3) await unlink(join(project, 'hand', 'deep', 'a.md'));
  if (beforePrompt === 4) await rename(join(project, 'hand', 'b.md'), join(project, 'hand', 'c.md'));
}

const HAND = (t: Record<string, string>) => Object.fromEntries(Object.entries(t).filter(([p]) => p.startsWith('hand') || p === 'src/keep.ts'));

describe("every checkpoint is the whole tree: the user's own edits between prompts are in it", () => {
  it('restore to before each prompt gives the tree as it was when that prompt was sent; undo gives the tree back', async () => {
    const x = await hookedSession(dirs, { handEdit, stop: true });
    const final = await snapshotTree(x.project);
    // Each prompt's checkpoint is a whole-tree one, whatever the agent's tools named.
    const prompts = (await listCheckpoints(x.project)).filter((c) => c.trigger === 'prompt');
    expect(prompts.map((c) => c.scan)).toEqual(['full', 'full', 'full', 'full', 'full']);
    expect(prompts[1]!.changed.added).toEqual(['hand/b.md', 'hand/deep/a.md']);
    expect(prompts[4]!.changed).toMatchObject({ added: ['hand/c.md'], deleted: ['hand/b.md'] });
    for (let k = 4; k >= 0; k--) {
      const target = await resolveRestoreTarget({ projectRoot: x.project, ref: x.prompts[k]!.uuid, session: x.session });
      const r = await restore(x.project, target, { force: true });
      expect(r.applied).not.toBeNull();
      expect(await snapshotTree(x.project), `before prompt ${k + 1}`).toEqual(x.trees[k]);
      await undoLatest(x.project);
      expect(await snapshotTree(x.project)).toEqual(final);
    }
  });

  it("revert of a prompt takes back only that prompt's changes: the hand edits before and after it stay", async () => {
    const x = await hookedSession(dirs, { handEdit, stop: true });
    const final = await snapshotTree(x.project);
    for (let k = 0; k < 5; k++) {
      const dry = await revert(x.project, { promptId: x.prompts[k]!.uuid, session: x.session, dryRun: true });
      // The hand-edited files are never part of a prompt's changes.
      expect(dry.preview.plan.changes.map((c) => c.path).filter((p) => p.startsWith('hand') || p === 'src/keep.ts')).toEqual([]);
      const take = Object.fromEntries(dry.preview.unresolved.map((p) => [p, 'before' as Take]));
      await revert(x.project, { promptId: x.prompts[k]!.uuid, session: x.session, take });
      expect(HAND(await snapshotTree(x.project)), `revert of prompt ${k + 1}`).toEqual(HAND(final));
      await undoLatest(x.project);
      expect(await snapshotTree(x.project)).toEqual(final);
    }
  });
});
