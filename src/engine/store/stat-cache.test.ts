import { mkdir, readFile, rename, rm, symlink, truncate, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { snapshotTree } from '../../../test/tree.js';
import { takeCheckpoint } from './checkpoint.js';
import { listCheckpoints, readManifest } from './manifest.js';
import { hashFile } from './objects.js';
import { scanTree } from './scan-tree.js';
import { decodeStatCache, encodeStatCache, readStatCache } from './stat-cache.js';
import { RowsBuilder } from './tree-rows.js';
import { walkTreeSync } from './walk-tree.js';

const cacheFile = (root: string) => join(root, '.agent', 'rewind', 'stat-cache.bin');

/** Every file's and folder's mtime a minute back: out of the racy window, as between two prompts. */
async function ageTree(root: string): Promise<void> {
  const t = new Date(Date.now() - 60_000);
  const { readdir, lstat } = await import('node:fs/promises');
  const visit = async (dir: string) => {
    for (const name of await readdir(dir)) {
      const p = join(dir, name);
      // The store's own folder is Rewind's: left as it is (`.agent` itself is a folder of the project).
      if (p === join(root, '.agent', 'rewind')) continue;
      const st = await lstat(p);
      if (st.isSymbolicLink()) continue;
      if (st.isDirectory()) await visit(p);
      await utimes(p, t, t);
    }
  };
  await visit(root);
  await utimes(root, t, t);
}

async function project(): Promise<string> {
  const root = await tempDir('rewind-statcache-');
  await writeFile(join(root, '.gitignore'), '*.log\n');
  await mkdir(join(root, 'src', 'deep'), { recursive: true });
  await writeFile(join(root, 'src', 'a.ts'), 'a\n');
  await writeFile(join(root, 'src', 'deep', 'ünï 文件.ts'), 'deep\n');
  await writeFile(join(root, 'secret.txt'), 'not ignored yet\n');
  await writeFile(join(root, 'debug.log'), 'ignored\n');
  await symlink('src/a.ts', join(root, 'link'));
  // An empty folder that sorts after a file of the same stem (x.txt < x/ but x < x.txt).
  await mkdir(join(root, 'x'));
  await writeFile(join(root, 'x.txt'), 'x\n');
  await mkdir(join(root, 'x-y'));
  await writeFile(join(root, 'x-y', 'z'), 'z\n');
  return root;
}

/** The checkpoint's tree as path -> content hash (or link target), read back from the store. */
async function treeOf(root: string, id: string): Promise<Record<string, string>> {
  const m = await readManifest(root, id);
  return Object.fromEntries(m.entries.map((e) => [e[0], `${e[1]} ${e[2]}`]));
}

/** What the tree on disk is now, in the same terms. */
async function diskTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const w of walkTreeSync(root)) {
    if (w.kind === 'file') out[w.path] = `f ${await hashFile(join(root, w.path))}`;
    else if (w.kind === 'symlink') out[w.path] = `l ${w.target}`;
    else if (w.kind === 'dir') out[w.path] = 'd ';
  }
  return out;
}

describe('the binary stat cache', () => {
  it('reads back what it wrote: rows (files, links, empty folders, unicode) and folder listings', async () => {
    const root = await project();
    const first = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const c = await readStatCache(root);
    expect(c?.checkpoint).toBe(first.manifest.id);
    const rows = c!.rows;
    const back = Array.from({ length: rows.length }, (_, i) => rows.toEntry(i).slice(0, 3));
    expect(back).toEqual(first.manifest.entries.map((e) => e.slice(0, 3)));
    expect(back.map((e) => e[0])).toEqual(['.gitignore', 'link', 'secret.txt', 'src/a.ts', 'src/deep/ünï 文件.ts', 'x', 'x-y/z', 'x.txt']);
    const listing = c!.dirs!.get('');
    expect(listing?.keys).toEqual(['.agent/', '.gitignore', 'link', 'secret.txt', 'src/', 'x-y/', 'x.txt', 'x/']);
    expect(listing?.names).toBe(9); // debug.log counts as a name on disk, though ignored
    expect(listing?.gi).not.toBeNull();
    // Encoding what was decoded gives the same bytes.
    const again = decodeStatCache(Buffer.concat(encodeStatCache(c!, new Map([['', listing!]]))));
    expect(Array.from({ length: again!.rows.length }, (_, i) => again!.rows.toEntry(i))).toEqual(Array.from({ length: rows.length }, (_, i) => rows.toEntry(i)));
  });

  it('refuses a hash that is not a sha256 rather than writing a wrong one', () => {
    const b = new RowsBuilder();
    b.push('a', 0, 0o644, 1, 1, 1, 1, 'not-a-hash');
    expect(() => encodeStatCache({ checkpoint: null, depth: 0, written: 0, rows: b.done() }, null)).toThrow(/not a sha256/);
  });

  it('a torn, damaged or foreign cache is refused and the checkpoint is still the tree on disk', async () => {
    const root = await project();
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await ageTree(root);
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const good = await readFile(cacheFile(root));
    expect(decodeStatCache(good)).not.toBeNull();
    // One flipped byte in the hashes: the checksum tells.
    const flipped = Buffer.from(good);
    flipped[flipped.length - 200]! ^= 0xff;
    expect(decodeStatCache(flipped)).toBeNull();
    // Cut short (a crash after the rename, before the data reached the disk), or zeroed.
    expect(decodeStatCache(good.subarray(0, good.length - 1))).toBeNull();
    expect(decodeStatCache(Buffer.alloc(good.length))).toBeNull();
    const other = Buffer.from(good);
    other.writeUInt32LE(99, 4);
    expect(decodeStatCache(other)).toBeNull();

    for (const damage of [(f: string) => truncate(f, 100), (f: string) => writeFile(f, flipped)]) {
      await damage(cacheFile(root));
      expect(await readStatCache(root)).toBeNull();
      // Hand edits the damaged cache knows nothing about: the checkpoint reads the tree afresh.
      await writeFile(join(root, 'src', 'a.ts'), `edited ${Math.random()}\n`);
      await writeFile(join(root, 'new.txt'), 'new\n');
      await unlink(join(root, 'x-y', 'z'));
      const r = await takeCheckpoint({ projectRoot: root, trigger: 'prompt' });
      expect(await treeOf(root, r.manifest.id)).toEqual(await diskTree(root));
      await mkdir(join(root, 'x-y'), { recursive: true });
      await writeFile(join(root, 'x-y', 'z'), 'z again\n');
    }
  });

  it('a stale cache (written for an older checkpoint) is only a hash cache: the parent is the newest manifest', async () => {
    const root = await project();
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await ageTree(root);
    const a = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const stale = await readFile(cacheFile(root));
    await writeFile(join(root, 'src', 'a.ts'), 'b changed it\n');
    const b = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    // The cache that names A is put back (a writer that died between the manifest and the cache).
    await writeFile(cacheFile(root), stale);
    expect((await readStatCache(root))?.checkpoint).toBe(a.manifest.id);
    await writeFile(join(root, 'later.txt'), 'later\n');
    const c = await takeCheckpoint({ projectRoot: root, trigger: 'prompt' });
    expect(c.manifest.parent).toBe(b.manifest.id);
    expect((await listCheckpoints(root)).at(-1)!.changed).toEqual({ added: ['later.txt'], modified: [], deleted: [] });
    expect(await treeOf(root, c.manifest.id)).toEqual(await diskTree(root));
  });
});

describe('folder listings kept between walks (untracked cache)', () => {
  it('an unchanged tree is walked without listing a folder again', async () => {
    const root = await project();
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await ageTree(root);
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const s = scanTree(root, await readStatCache(root));
    expect(s.listed).toBe(0);
    expect(s.reused).toBe(6); // '', .agent (its rewind/ is never walked), src, src/deep, x-y and the empty x
    expect(s.toRead).toEqual([]);
  });

  it('sees every change a listing could hide: new files and folders, deletions, renames, kinds, empty folders', async () => {
    const root = await project();
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await ageTree(root);
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await writeFile(join(root, 'src', 'deep', 'added.ts'), 'added\n');
    await mkdir(join(root, 'fresh', 'deeper'), { recursive: true });
    await writeFile(join(root, 'fresh', 'deeper', 'f.ts'), 'f\n');
    await mkdir(join(root, 'fresh', 'empty'));
    await rename(join(root, 'src', 'a.ts'), join(root, 'x-y', 'a-moved.ts'));
    await unlink(join(root, 'x.txt'));
    await rm(join(root, 'x'), { recursive: true });
    await writeFile(join(root, 'x'), 'a file where the empty folder was\n');
    await unlink(join(root, 'link'));
    await symlink('x-y', join(root, 'link'));
    const r = await takeCheckpoint({ projectRoot: root, trigger: 'prompt' });
    expect(await treeOf(root, r.manifest.id)).toEqual(await diskTree(root));
    expect((await listCheckpoints(root)).at(-1)!.changed).toEqual({
      added: ['fresh/deeper/f.ts', 'src/deep/added.ts', 'x-y/a-moved.ts'],
      modified: ['link', 'x'],
      deleted: ['src/a.ts', 'x.txt'],
    });
  });

  it('a .gitignore edited in place (its folder unchanged) is applied: files leave and come back', async () => {
    const root = await project();
    await writeFile(join(root, 'src', '.gitignore'), '# none yet\n');
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await ageTree(root);
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await writeFile(join(root, '.gitignore'), '*.log\nsecret.txt\n');
    await writeFile(join(root, 'src', '.gitignore'), 'deep/\n');
    const hidden = await takeCheckpoint({ projectRoot: root, trigger: 'prompt' });
    const paths = hidden.manifest.entries.map((e) => e[0]);
    expect(paths).not.toContain('secret.txt');
    expect(paths).not.toContain('src/deep/ünï 文件.ts');
    await ageTree(root);
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await writeFile(join(root, '.gitignore'), '*.log\n');
    await writeFile(join(root, 'src', '.gitignore'), '# none again\n');
    const back = await takeCheckpoint({ projectRoot: root, trigger: 'prompt' });
    expect(back.manifest.entries.map((e) => e[0])).toEqual(expect.arrayContaining(['secret.txt', 'src/deep/ünï 文件.ts']));
    expect(await treeOf(root, back.manifest.id)).toEqual(await diskTree(root));
  });

  it('a folder changed within the racy window of the walk that listed it is listed again', async () => {
    const root = await project();
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    // Not aged: every folder's mtime is within two seconds of that walk.
    const s = scanTree(root, await readStatCache(root));
    expect(s.reused).toBe(0);
    expect(s.listed).toBeGreaterThan(0);
  });

  it('restores and reverts still see the tree through the cache (a whole-tree round trip)', async () => {
    const root = await project();
    await ageTree(root);
    const first = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const before = await snapshotTree(root);
    await ageTree(root);
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await writeFile(join(root, 'src', 'deep', 'added.ts'), 'added\n');
    await writeFile(join(root, 'secret.txt'), 'changed\n');
    const { resolveRestoreTarget, restore } = await import('./restore.js');
    await restore(root, await resolveRestoreTarget({ projectRoot: root, ref: first.manifest.id }), { force: true });
    expect(await snapshotTree(root)).toEqual(before);
  });
});
