import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../../test/fixtures.js';
import { CANNOT_DROP_ROOT, NOBODY, reachableByNobody } from '../../test/nobody.js';
import { tempDir } from '../../test/temp.js';

/**
 * A config the user made read-only (chmod 444) was edited anyway: the new text is renamed over it,
 * which a file's own mode does not stop, and it kept its 444. Probed as a non-root user for issue
 * #34. As root (which every permission check lets through) the test runs the CLI as `nobody`.
 */
const setpriv = NOBODY;

describe.skipIf(process.platform === 'win32' || CANNOT_DROP_ROOT)('a read-only config', () => {
  it('hooks install and mcp install refuse it in one line and leave it as it was', async () => {
    if (!existsSync(BUILT_CLI)) throw new Error('build the CLI first (npm run build)');
    const base = await tempDir('ro-config-');
    const home = join(base, 'home');
    const config = join(home, '.qwen', 'settings.json');
    await mkdir(join(home, '.qwen'), { recursive: true });
    await writeFile(config, '{\n  "mine": 1\n}\n');
    await chmod(config, 0o444);
    if (setpriv) execFileSync('chown', ['-R', '65534:65534', base]);
    const reopen = setpriv ? await reachableByNobody(base) : async () => undefined;
    try {
    for (const args of [
      ['hooks', 'install', '--agent', 'qwen', '--scope', 'user'],
      ['mcp', 'install', '--agent', 'qwen', '--scope', 'user'],
    ]) {
      const argv = [...(setpriv ?? []), process.execPath, BUILT_CLI, ...args, '--project', base];
      const r = spawnSync(argv[0]!, argv.slice(1), { env: { HOME: home, PATH: process.env.PATH ?? '', TMPDIR: base }, encoding: 'utf8' });
      expect(r.status, r.stderr).not.toBe(0);
      expect(r.stderr.trim()).toMatch(/^rewind-app: .*settings\.json is read-only: nothing was changed/);
    }
    } finally {
      await reopen();
    }
    expect(await readFile(config, 'utf8')).toBe('{\n  "mine": 1\n}\n');
  }, 30_000);
});
