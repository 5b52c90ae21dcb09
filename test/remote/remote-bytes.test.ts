import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../fixtures.js';
import { tempDir, tempEnv } from '../temp.js';
import { SSHD, startSshd, type TestSshd } from './sshd.js';

/** The built CLI with its stdout and stderr as bytes (runBuiltCli decodes them). */
function runRaw(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
  });
}

/**
 * `--host` through a real OpenSSH server, the remote's `rewind-app` a stand-in that prints 16 MB of
 * arbitrary bytes (the probe's case): they must come back as they were, not re-encoded as UTF-8.
 */
describe.skipIf(process.platform !== 'linux')('--host over ssh passes the remote’s bytes through', () => {
  let sshd: TestSshd;
  let dir: string;
  const bytes = Buffer.concat([randomBytes(16 * 1024 * 1024), Buffer.from([0xff, 0xc3, 0x28, 0x80])]);
  const errBytes = Buffer.from([0x6e, 0x6f, 0x74, 0x65, 0x3a, 0xfe, 0xff, 0x0a]);

  beforeAll(async () => {
    if (!SSHD) throw new Error('sshd not found: install openssh-server (.ci/run does)');
    if (!existsSync(BUILT_CLI)) throw new Error('build the CLI first (npm run build)');
    dir = await tempDir('rewind-remote-bytes-');
    await writeFile(join(dir, 'out.bin'), bytes);
    await writeFile(join(dir, 'err.bin'), errBytes);
    const fake = join(dir, 'fake-rewind-app.mjs');
    await writeFile(fake, `import { readFileSync } from 'node:fs';\nprocess.stderr.write(readFileSync(${JSON.stringify(join(dir, 'err.bin'))}));\nprocess.stdout.write(readFileSync(${JSON.stringify(join(dir, 'out.bin'))}), () => process.exit(4));\n`);
    sshd = await startSshd({ remoteBin: fake });
    await mkdir(join(dir, 'config'));
    await writeFile(join(dir, 'config', 'remotes.json'), JSON.stringify({ hosts: [{ name: 'box', target: sshd.alias, version: null, addedAt: new Date().toISOString() }] }));
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
  });

  it('16 MB of non-UTF-8 bytes and the remote’s stderr come back byte for byte, with its exit code', async () => {
    const r = await runRaw(['sessions', '--json', '--host', 'box'], { PATH: process.env.PATH, ...tempEnv(), HOME: dir, REWIND_CONFIG_DIR: join(dir, 'config'), REWIND_SSH: sshd.sshWrapper, REWIND_NO_FORWARD: '1' });
    expect(r.code, r.stderr.toString()).toBe(4);
    expect(r.stdout.length).toBe(bytes.length);
    expect(r.stdout.equals(bytes)).toBe(true);
    expect(r.stderr.equals(errBytes)).toBe(true);
  }, 120_000);
});
