import { chmod, mkdir, readFile, readdir, readlink, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { undoLatest } from '../journal/undo.js';
import { recordAgentWrite } from './agent-writes.js';
import { takeCheckpoint } from './checkpoint.js';
import { checkpointsDir, listCheckpoints, readManifest } from './manifest.js';
import { hashFile } from './objects.js';
import { resolveRestoreTarget, restore } from './restore.js';
import { snapshotTree } from '../../../test/tree.js';

/** Every file's mtime a minute back: out of the racy window, as files are between two prompts. */
async function ageTree(root: string): Promise<void> {
  const { walkTreeSync } = await import('./walk-tree.js');
  const t = new Date(Date.now() - 60_000);
  for (const w of walkTreeSync(root)) if (w.kind === 'file') await utimes(join(root, w.path), t, t);
}

async function project() {
  const root = await tempDir('rewind-store-');
  await writeFile(join(root, '.gitignore'), 'node_modules/\n*.log\n!keep.log\n');
  await mkdir(join(root, 'src', 'deep'), { recursive: true });
  await writeFile(join(root, 'src', 'main.ts'), 'export const a = 1;\n');
  await writeFile(join(root, 'src', '.gitignore'), 'generated/\n');
  await mkdir(join(root, 'src', 'generated'));
  await writeFile(join(root, 'src', 'generated', 'out.js'), 'ignored');
  await writeFile(join(root, 'src', 'deep', 'ünïcödé 文件.txt'), 'unicode name\n');
  await writeFile(join(root, 'bin.dat'), Buffer.from([0, 1, 2, 255, 0, 42]));
  await writeFile(join(root, 'run.sh'), '#!/bin/sh\necho hi\n');
  await chmod(join(root, 'run.sh'), 0o755);
  await symlink('src/main.ts', join(root, 'link-to-main'));
  await mkdir(join(root, 'empty-dir'));
  await mkdir(join(root, 'node_modules', 'x'), { recursive: true });
  await writeFile(join(root, 'node_modules', 'x', 'index.js'), 'dep');
  await writeFile(join(root, 'debug.log'), 'ignored log');
  await writeFile(join(root, 'keep.log'), 'kept log');
  await mkdir(join(root, '.git'));
  await writeFile(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return root;
}

describe('checkpoints', () => {
  it('store what git would track: nested .gitignore, symlinks, exec bits, empty dirs, unicode', async () => {
    const root = await project();
    const { manifest } = await takeCheckpoint({ projectRoot: root, trigger: 'manual', label: 'first' });
    const paths = manifest.entries.map((e) => `${e[1]} ${e[0]}`);
    expect(paths).toEqual([
      'f .gitignore',
      'f bin.dat',
      'd empty-dir',
      'f keep.log',
      'l link-to-main',
      'f run.sh',
      'f src/.gitignore',
      'f src/deep/ünïcödé 文件.txt',
      'f src/main.ts',
    ]);
    expect(manifest.entries.find((e) => e[0] === 'run.sh')![3] & 0o111).not.toBe(0);
    expect(manifest.entries.find((e) => e[0] === 'link-to-main')![2]).toBe('src/main.ts');
    expect(await readFile(join(root, '.agent', 'rewind', '.gitignore'), 'utf8')).toBe('*\n');
    const blob = manifest.entries.find((e) => e[0] === 'src/main.ts')![2];
    expect(blob).toBe(await hashFile(join(root, 'src', 'main.ts')));
    const objStat = await stat(join(root, '.agent', 'rewind', 'objects', blob.slice(0, 2), blob));
    expect(objStat.mode & 0o077).toBe(0);
  });

  it('an unchanged re-checkpoint reads no file; every change is seen, reported or not; named paths are read whatever their stat', async () => {
    const root = await project();
    const first = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    expect(first.hashed).toBe(7);
    // Files written within the racy window of a walk are read again by the next one (git's racy-clean).
    const racy = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    expect(racy.hashed).toBe(7);
    await ageTree(root);
    const settle = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    expect(settle.hashed).toBe(7); // utimes changed every ctime: read once more
    const again = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    expect(again.hashed).toBe(0);
    await writeFile(join(root, 'src', 'main.ts'), 'export const a = 2;\n');
    await writeFile(join(root, 'src', 'new.ts'), 'new\n');
    await writeFile(join(root, 'bin.dat'), 'changed but not reported');
    const next = await takeCheckpoint({ projectRoot: root, trigger: 'prompt', touched: ['src/main.ts', 'src/new.ts', 'src/generated/out.js'] });
    expect(next.manifest.scan).toBe('full');
    expect(next.hashed).toBe(3);
    // Stored as a delta of what changed; read back, it is the whole tree.
    expect(next.manifest.delta!.set.map((e) => e[0])).toEqual(['bin.dat', 'src/main.ts', 'src/new.ts']);
    const resolved = await readManifest(root, next.manifest.id);
    const paths = resolved.entries.map((e) => e[0]);
    expect(paths).toContain('src/new.ts');
    expect(paths).not.toContain('src/generated/out.js');
    expect(resolved.entries.find((e) => e[0] === 'src/main.ts')![2]).toBe(await hashFile(join(root, 'src', 'main.ts')));
    expect(resolved.entries.find((e) => e[0] === 'bin.dat')![2]).toBe(await hashFile(join(root, 'bin.dat')));
    const list = await listCheckpoints(root);
    expect(list.map((c) => c.scan)).toEqual(['full', 'full', 'full', 'full', 'full']);
    expect(list[4]!.changed).toEqual({ added: ['src/new.ts'], modified: ['bin.dat', 'src/main.ts'], deleted: [] });
    // A named path is read even when its stat looks unchanged (a write in the same timestamp tick).
    await ageTree(root);
    await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const st = await stat(join(root, 'src', 'main.ts'));
    await writeFile(join(root, 'src', 'main.ts'), 'export const a = 3;\n');
    await utimes(join(root, 'src', 'main.ts'), st.atime, st.mtime);
    const named = await takeCheckpoint({ projectRoot: root, trigger: 'prompt', touched: ['src/main.ts'] });
    expect(named.manifest.entries.find((e) => e[0] === 'src/main.ts')![2]).toBe(await hashFile(join(root, 'src', 'main.ts')));
  });

  it('records files over the size limit as skipped', async () => {
    const root = await project();
    await mkdir(join(root, '.agent', 'rewind'), { recursive: true });
    await writeFile(join(root, '.agent', 'rewind', 'config.json'), JSON.stringify({ maxFileBytes: 10 }));
    const { manifest } = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    expect(manifest.skipped.map((s) => s.path).sort()).toEqual(['.gitignore', 'run.sh', 'src/.gitignore', 'src/deep/ünïcödé 文件.txt', 'src/main.ts']);
    expect(manifest.entries.map((e) => e[0])).toContain('bin.dat');
  });
});

describe('restore', () => {
  it('round-trips the tree exactly and leaves unchanged files alone (mtime kept)', async () => {
    const root = await project();
    const before = await snapshotTree(root);
    const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const untouchedMtime = (await stat(join(root, 'keep.log'))).mtimeMs;
    // The agent rewrites things (reported edits, so no conflicts).
    await writeFile(join(root, 'src', 'main.ts'), 'broken\n');
    await recordAgentWrite(root, { time: new Date(Date.now() + 1000).toISOString(), path: 'src/main.ts', ref: await hashFile(join(root, 'src', 'main.ts')), tool: 'Write' });
    await rm(join(root, 'src', 'deep'), { recursive: true });
    await recordAgentWrite(root, { time: new Date(Date.now() + 1000).toISOString(), path: 'src/deep/ünïcödé 文件.txt', ref: null, tool: 'Bash' });
    await chmod(join(root, 'run.sh'), 0o644);
    await rm(join(root, 'link-to-main'));
    await symlink('elsewhere', join(root, 'link-to-main'));
    await rm(join(root, 'empty-dir'), { recursive: true });
    await writeFile(join(root, 'bin.dat'), Buffer.from([9, 9, 0]));
    const target = await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id });
    const dry = await restore(root, target, { dryRun: true });
    expect(dry.preview.plan.changes.map((c) => [c.path, c.action]).sort()).toEqual([
      ['bin.dat', 'modify'],
      ['empty-dir', 'create'],
      ['link-to-main', 'modify'],
      ['run.sh', 'modify'],
      ['src/deep/ünïcödé 文件.txt', 'create'],
      ['src/main.ts', 'modify'],
    ]);
    const mainDiff = dry.preview.diffs.find((d) => d.path === 'src/main.ts')!;
    expect(mainDiff.patch).toContain('-broken');
    expect(mainDiff.patch).toContain('+export const a = 1;');
    // As git prints it: starts at the file names, which carry no trailing tab.
    expect(mainDiff.patch!.split('\n').slice(0, 2)).toEqual(['--- a/src/main.ts', '+++ b/src/main.ts']);
    expect(dry.preview.diffs.find((d) => d.path === 'bin.dat')).toMatchObject({ binary: true, sizeBefore: 3, sizeAfter: 6 });
    // Conflicts: bin.dat, run.sh and the link were changed without a reported agent edit.
    expect(dry.preview.plan.changes.filter((c) => c.conflict).map((c) => c.path).sort()).toEqual(['bin.dat', 'link-to-main', 'run.sh']);
    await expect(restore(root, target)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await readFile(join(root, 'src', 'main.ts'), 'utf8')).toBe('broken\n');

    const r = await restore(root, target, { force: true });
    expect(r.applied!.written).toBe(5);
    expect(await snapshotTree(root)).toEqual(before);
    expect((await stat(join(root, 'run.sh'))).mode & 0o111).not.toBe(0);
    expect(await readlink(join(root, 'link-to-main'))).toBe('src/main.ts');
    expect((await stat(join(root, 'keep.log'))).mtimeMs).toBe(untouchedMtime);
    expect(await readFile(join(root, 'node_modules', 'x', 'index.js'), 'utf8')).toBe('dep');

    // Undo puts back exactly what was there before the restore.
    const u = await undoLatest(root);
    expect(u.undone.kind).toBe('restore');
    expect(await readFile(join(root, 'src', 'main.ts'), 'utf8')).toBe('broken\n');
    expect(await readlink(join(root, 'link-to-main'))).toBe('elsewhere');
    expect([...(await readFile(join(root, 'bin.dat')))]).toEqual([9, 9, 0]);
  });

  it('deletes files the checkpoint does not have, and directories that leaves empty', async () => {
    const root = await project();
    const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await mkdir(join(root, 'added', 'nested'), { recursive: true });
    await writeFile(join(root, 'added', 'nested', 'x.ts'), 'x');
    await recordAgentWrite(root, { time: new Date(Date.now() + 1000).toISOString(), path: 'added/nested/x.ts', ref: await hashFile(join(root, 'added', 'nested', 'x.ts')), tool: 'Write' });
    await restore(root, await resolveRestoreTarget({ projectRoot: root, ref: '@1' }));
    await expect(stat(join(root, 'added'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(cp.manifest.id).toBeTruthy();
  });

  it('refuses a malicious manifest and writes nothing', async () => {
    for (const evil of ['../outside.txt', '/etc/evil', 'a/../../b', 'sub/./x']) {
      const root = await project();
      const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
      const p = join(checkpointsDir(root), `${cp.manifest.id}.json`);
      const m = JSON.parse(await readFile(p, 'utf8'));
      m.entries.push([evil, 'f', m.entries.find((e: unknown[]) => e[0] === 'src/main.ts')[2], 0o644, 5, 0, 0]);
      await writeFile(p, JSON.stringify(m));
      const before = await snapshotTree(root);
      const target = await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id });
      await expect(restore(root, target, { force: true })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
      expect(await snapshotTree(root)).toEqual(before);
      expect((await readdir(join(root, '..'))).includes('outside.txt')).toBe(false);
    }
  });

  it('refuses to write through a symlinked directory', async () => {
    const root = await project();
    const outside = await tempDir('rewind-outside-');
    const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await rm(join(root, 'src'), { recursive: true });
    await symlink(outside, join(root, 'src'));
    const target = await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id });
    await expect(restore(root, target, { force: true })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readdir(outside)).toEqual([]);
  });

  it('a corrupt object is caught on read', async () => {
    const root = await project();
    const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const blob = cp.manifest.entries.find((e) => e[0] === 'src/main.ts')![2];
    const objPath = join(root, '.agent', 'rewind', 'objects', blob.slice(0, 2), blob);
    await chmod(objPath, 0o600);
    await writeFile(objPath, 'tampered');
    await writeFile(join(root, 'src', 'main.ts'), 'changed');
    await recordAgentWrite(root, { time: new Date(Date.now() + 1000).toISOString(), path: 'src/main.ts', ref: await hashFile(join(root, 'src', 'main.ts')), tool: 'Edit' });
    await expect(restore(root, await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id }))).rejects.toMatchObject({ code: 'IO', message: expect.stringMatching(/corrupt/) });
    expect((await readManifest(root, cp.manifest.id)).id).toBe(cp.manifest.id);
    void utimes;
  });
});
