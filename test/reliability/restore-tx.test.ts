import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../fixtures.js';
import { snapshotTree } from '../tree.js';
import { takeCheckpoint } from '../../src/engine/store/checkpoint.js';
import { checkpointsDir } from '../../src/engine/store/manifest.js';
import { resolveRestoreTarget, restore } from '../../src/engine/store/restore.js';
import { readJournal } from '../../src/engine/journal/record.js';
import { undoLatest } from '../../src/engine/journal/undo.js';

async function project(files = 3) {
  const root = await tempDir('rewind-tx-');
  await writeFile(join(root, '.gitignore'), '*.log\n');
  for (let i = 0; i < files; i++) await writeFile(join(root, `f${String(i).padStart(2, '0')}.txt`), `v1 ${i}\n`);
  return root;
}

/** Every file under root whose name says it is one of our temp files. */
async function temps(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).filter((n) => /rewind-tmp|\.tmp$/.test(n) && !n.includes('objects'));
}

describe('restore is all or nothing', () => {
  it('a file that became a directory: refused before any write when the directory holds something else', async () => {
    const root = await project();
    await writeFile(join(root, 'sub'), 'was a file\n');
    const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    await writeFile(join(root, 'f00.txt'), 'v2\n');
    await rm(join(root, 'sub'));
    await mkdir(join(root, 'sub'));
    await writeFile(join(root, 'sub', 'debug.log'), 'ignored, so not in any plan');
    const before = await snapshotTree(root);
    const target = await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id });
    await expect(restore(root, target, { force: true })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/sub is a directory on disk/) });
    expect(await snapshotTree(root)).toEqual(before);
    expect((await readJournal(root)).filter((r) => r.kind === 'restore')).toEqual([]);
  });

  it('a file that became a directory of new files: restored whole with --force, and undone whole', async () => {
    const root = await project();
    await writeFile(join(root, 'sub'), 'was a file\n');
    const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const original = await snapshotTree(root);
    await writeFile(join(root, 'f00.txt'), 'v2\n');
    await rm(join(root, 'sub'));
    await mkdir(join(root, 'sub', 'deep'), { recursive: true });
    await writeFile(join(root, 'sub', 'deep', 'x.txt'), 'new\n');
    const changed = await snapshotTree(root);
    const target = await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id });
    await expect(restore(root, target)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await snapshotTree(root)).toEqual(changed);
    await restore(root, target, { force: true });
    expect(await snapshotTree(root)).toEqual(original);
    await undoLatest(root);
    expect(await snapshotTree(root)).toEqual(changed);
    expect(await temps(root)).toEqual([]);
  });

  it('a full disk (write hook) leaves the tree as it was, no temp files, and names the file', async () => {
    const root = await project(20);
    const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    for (let i = 0; i < 20; i++) await writeFile(join(root, `f${String(i).padStart(2, '0')}.txt`), `v2 ${i}\n`);
    const before = await snapshotTree(root);
    let n = 0;
    const writeHook = async (dest: string) => {
      if (++n === 7) throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC' });
      void dest;
    };
    const target = await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id });
    await expect(restore(root, target, { force: true, writeHook })).rejects.toMatchObject({ code: 'IO', message: expect.stringMatching(/no space left on the device writing f06\.txt; nothing was changed/) });
    expect(await snapshotTree(root)).toEqual(before);
    expect(await temps(root)).toEqual([]);
    expect(await readdir(join(root, '.agent', 'rewind', 'pending')).catch(() => [])).toEqual([]);
    const journal = await readJournal(root);
    expect(journal.filter((r) => r.kind === 'restore')).toEqual([]);
    expect(journal.filter((r) => r.kind === 'intent-end').map((r) => (r as { outcome: string }).outcome)).toEqual(['rolled-back']);
    await expect(undoLatest(root)).rejects.toMatchObject({ code: 'NOTHING_TO_UNDO' });
  });

  it('a crafted manifest mode keeps only permission bits (no setuid, setgid or sticky)', async () => {
    const root = await project(1);
    const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
    const file = join(checkpointsDir(root), `${cp.manifest.id}.json`);
    const m = JSON.parse(await readFile(file, 'utf8'));
    m.entries = m.entries.map((e: unknown[]) => (e[0] === 'f00.txt' ? [e[0], e[1], e[2], 0o106777, e[4], e[5], e[6]] : e));
    await writeFile(file, JSON.stringify(m));
    await writeFile(join(root, 'f00.txt'), 'v2\n');
    await restore(root, await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id }), { force: true });
    expect((await stat(join(root, 'f00.txt'))).mode & 0o7777).toBe(0o777);
  });

  // A real full file system where the machine allows mounting one (root on Linux).
  const canMount = process.platform === 'linux' && process.getuid?.() === 0;
  it.skipIf(!canMount)('a real full disk (tmpfs): nothing changes, no temp files, the file is named', async () => {
    const mnt = await tempDir('rewind-tmpfs-');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]);
    } catch {
      return; // a container without CAP_SYS_ADMIN: the write hook above covers it
    }
    try {
      const root = join(mnt, 'p');
      await mkdir(root);
      const big = (i: number, v: string) => Buffer.alloc(200_000, `${v}${i}`);
      for (let i = 0; i < 5; i++) await writeFile(join(root, `f${i}.bin`), big(i, 'a'));
      const cp = await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
      for (let i = 0; i < 5; i++) await writeFile(join(root, `f${i}.bin`), big(i, 'b'));
      const target = await resolveRestoreTarget({ projectRoot: root, ref: cp.manifest.id });
      // Fill the disk once the pre-restore checkpoint is taken, right before staging.
      let filled = false;
      const writeHook = async () => {
        if (filled) return;
        filled = true;
        const { open } = await import('node:fs/promises');
        const fh = await open(join(mnt, 'filler'), 'w');
        try {
          for (;;) await fh.write(Buffer.alloc(64 * 1024));
        } catch {
          // full
        } finally {
          await fh.close();
        }
        // Leave room for the intent but not for 200 KB of staged content.
        const { truncate } = await import('node:fs/promises');
        const size = (await stat(join(mnt, 'filler'))).size;
        await truncate(join(mnt, 'filler'), Math.max(0, size - 100_000));
      };
      const before = await snapshotTree(root);
      await expect(restore(root, target, { force: true, writeHook })).rejects.toMatchObject({ message: expect.stringMatching(/no space left on the device writing f\d\.bin/) });
      expect(await snapshotTree(root)).toEqual(before);
      expect(await temps(root)).toEqual([]);
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});

describe('an intent left by a killed run', () => {
  const deadPid = 2 ** 22 + 12345;
  async function leave(root: string, phase: 'staged' | 'applied', onComplete: object | null) {
    const { beginIntent, markApplied } = await import('../../src/engine/store/restore-intent.js');
    const pre = await takeCheckpoint({ projectRoot: root, trigger: 'pre-restore' });
    const tmp = join(root, '.abc123.rewind-tmp');
    await writeFile(tmp, 'staged');
    const tx = await beginIntent(root, { op: 'restore', preRestoreCheckpointId: pre.manifest.id, onComplete: onComplete as never }, ['f00.txt', 'f01.txt', 'new.txt'], [tmp]);
    if (phase === 'applied') await markApplied(root, tx);
    tx.pending.pid = deadPid;
    await writeFile(tx.file, JSON.stringify(tx.pending));
  }

  it('half-way through its renames: rolled back by the next run, which says so', async () => {
    const root = await project(3);
    const before = await snapshotTree(root);
    await leave(root, 'staged', null);
    await writeFile(join(root, 'f00.txt'), 'half restored\n');
    await rm(join(root, 'f01.txt'));
    await writeFile(join(root, 'new.txt'), 'created by the restore\n');
    const { recoverPending } = await import('../../src/engine/store/restore-intent.js');
    expect(await recoverPending(root)).toEqual([expect.stringMatching(/interrupted restore .* was rolled back: 3 paths put back/)]);
    expect(await snapshotTree(root)).toEqual(before);
    expect(await temps(root)).toEqual([]);
    expect(await readdir(join(root, '.agent', 'rewind', 'pending'))).toEqual([]);
    expect(await recoverPending(root)).toEqual([]);
  });

  it("is rolled back when the window's service opens a session of that project, and the window is told", async () => {
    const root = await project(3);
    const before = await snapshotTree(root);
    await leave(root, 'staged', null);
    await writeFile(join(root, 'f00.txt'), 'half restored\n');
    // A session whose project is that folder (Codex's rollout names its cwd in its first line).
    const home = await tempDir('rewind-recover-home-');
    const id = '01a20831-cccc-7000-8000-000000000003';
    const rollout = join(home, 'sessions', '2026', '11', '23', `rollout-2026-11-23T11-00-00-${id}.jsonl`);
    await mkdir(join(rollout, '..'), { recursive: true });
    const line = (o: object) => `${JSON.stringify({ timestamp: new Date().toISOString(), ...o })}\n`;
    await writeFile(
      rollout,
      line({ type: 'session_meta', payload: { id, cwd: root, cli_version: '0.169.0' } }) +
        line({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] } }),
    );
    const { RewindService } = await import('../../src/main/service/rewind-service.js');
    const svc = new RewindService({ claudeRoot: join(home, 'no-claude'), roots: { codex: home }, cacheDir: join(home, 'cache') });
    const said: string[] = [];
    svc.onEvent((e) => e.type === 'operationFinished' && said.push(e.summary));
    try {
      const t = await svc.handle('getTimeline', { session: rollout });
      expect(t.ok).toBe(true);
      expect(await snapshotTree(root)).toEqual(before);
      expect(said).toEqual([expect.stringMatching(/^An interrupted restore .* was rolled back/)]);
    } finally {
      await svc.close();
    }
  });

  it('after its last rename: rolled forward, its journal entry written once', async () => {
    const root = await project(3);
    const record = { kind: 'restore', id: 'rec-1', time: new Date().toISOString(), checkpointId: 'x', preRestoreCheckpointId: 'y' };
    await leave(root, 'applied', record);
    await writeFile(join(root, 'f00.txt'), 'restored\n');
    const after = await snapshotTree(root);
    delete after['.abc123.rewind-tmp']; // a leftover temp goes
    const { recoverPending } = await import('../../src/engine/store/restore-intent.js');
    expect(await recoverPending(root)).toEqual([expect.stringMatching(/had written every file/)]);
    expect(await snapshotTree(root)).toEqual(after);
    expect((await readJournal(root)).filter((r) => r.id === 'rec-1')).toHaveLength(1);
    expect(await temps(root)).toEqual([]);
  });

  it('one whose process is still running is left alone', async () => {
    const root = await project(1);
    const { beginIntent, recoverPending } = await import('../../src/engine/store/restore-intent.js');
    const pre = await takeCheckpoint({ projectRoot: root, trigger: 'pre-restore' });
    await beginIntent(root, { op: 'restore', preRestoreCheckpointId: pre.manifest.id, onComplete: null }, ['f00.txt'], []);
    // Our own pid counts as gone (a process never waits on itself); use the parent's.
    const file = join(root, '.agent', 'rewind', 'pending', (await readdir(join(root, '.agent', 'rewind', 'pending')))[0]!);
    await writeFile(file, JSON.stringify({ ...JSON.parse(await readFile(file, 'utf8')), pid: process.ppid }));
    expect(await recoverPending(root)).toEqual([]);
    expect(await readdir(join(root, '.agent', 'rewind', 'pending'))).toHaveLength(1);
  });
});
