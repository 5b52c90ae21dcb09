import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../../../test/fixtures.js';
import { CANNOT_DROP_ROOT, NOBODY, reachableByNobody } from '../../../test/nobody.js';
import { tempDir } from '../../../test/temp.js';

/**
 * A folder the checkpoint cannot list (chmod 000, another user's build output) was recorded as an
 * empty folder, its files silently missing: a later restore, once it was readable again, deleted
 * them as "created after the checkpoint". Probed as a non-root user for issue #34 (as root, which
 * reads anything, the CLI runs as `nobody`).
 */
const setpriv = NOBODY;

describe.skipIf(process.platform === 'win32' || CANNOT_DROP_ROOT)('a folder that cannot be read', () => {
  it('is named as skipped, and restore leaves what it holds', async () => {
    if (!existsSync(BUILT_CLI)) throw new Error('build the CLI first (npm run build)');
    const base = await tempDir('unreadable-dir-');
    const project = join(base, 'proj');
    await mkdir(join(project, 'locked'), { recursive: true });
    await writeFile(join(project, 'a.txt'), 'v1\n');
    await writeFile(join(project, 'locked', 'x.txt'), 'keep\n');
    if (setpriv) for (const p of [base, project, join(project, 'a.txt'), join(project, 'locked'), join(project, 'locked', 'x.txt')]) await chown(p, 65534, 65534);
    const reopen = setpriv ? await reachableByNobody(base) : async () => undefined;
    try {
    const cli = (...args: string[]) => {
      const argv = [...(setpriv ?? []), process.execPath, BUILT_CLI, ...args, '--project', project];
      return spawnSync(argv[0]!, argv.slice(1), { env: { HOME: base, PATH: process.env.PATH ?? '', TMPDIR: base }, encoding: 'utf8' });
    };
    await chmod(join(project, 'locked'), 0o000);
    const c = cli('checkpoint', '--json');
    expect(c.status, c.stderr).toBe(0);
    const made = JSON.parse(c.stdout) as { id: string; skipped: { path: string; reason: string }[] };
    expect(made.skipped).toEqual([expect.objectContaining({ path: 'locked', reason: expect.stringMatching(/folder that cannot be read/) })]);
    await chmod(join(project, 'locked'), 0o755);
    await writeFile(join(project, 'a.txt'), 'v2\n');
    const r = cli('restore', made.id, '--force', '--json');
    expect(r.status, r.stderr).toBe(0);
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('v1\n');
    expect(await readFile(join(project, 'locked', 'x.txt'), 'utf8')).toBe('keep\n');
    } finally {
      await reopen();
    }
  }, 30_000);
});

describe.skipIf(process.platform !== 'linux')('a file or folder whose name is not UTF-8', () => {
  it('is named as skipped (it cannot be copied by its name), never silently left out; restore leaves it', async () => {
    const { takeCheckpoint } = await import('./checkpoint.js');
    const { resolveRestoreTarget, restore } = await import('./restore.js');
    const { readdir: readdirBuf, writeFile: writeBuf, mkdir: mkdirBuf } = await import('node:fs/promises');
    const base = await tempDir('latin1-name-');
    await writeFile(join(base, 'a.txt'), 'v1\n');
    // "café.txt" and "dossier-é/" in Latin-1: a byte (0xE9) that is not UTF-8.
    const file = Buffer.concat([Buffer.from(`${base}/caf`), Buffer.from([0xe9]), Buffer.from('.txt')]);
    const dir = Buffer.concat([Buffer.from(`${base}/dossier-`), Buffer.from([0xe9])]);
    await writeBuf(file, 'latin\n');
    await mkdirBuf(dir);
    await writeBuf(Buffer.concat([dir, Buffer.from('/x.txt')]), 'inside\n');
    const m = (await takeCheckpoint({ projectRoot: base, trigger: 'manual' })).manifest;
    expect(m.skipped.map((s) => s.path).sort()).toEqual(['caf\uFFFD.txt', 'dossier-\uFFFD']);
    expect(m.skipped[0]!.reason).toMatch(/not UTF-8/);
    await writeFile(join(base, 'a.txt'), 'v2\n');
    await restore(base, await resolveRestoreTarget({ projectRoot: base, ref: m.id }), { force: true });
    expect(await readFile(join(base, 'a.txt'), 'utf8')).toBe('v1\n');
    expect((await readdirBuf(base, { encoding: 'buffer' })).length).toBe(4);
  });
});
