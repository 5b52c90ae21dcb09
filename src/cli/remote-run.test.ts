import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/temp.js';
import type { CliIO } from './io.js';
import { run } from './main.js';

/**
 * `--host` through the same path as over ssh, with REWIND_SSH a local stand-in for ssh that prints
 * what the "remote" printed (test/remote/remote-bytes.test.ts does it through a real sshd).
 */
describe.skipIf(process.platform === 'win32')('--host passes the remote’s output through', () => {
  it('gives back the remote’s stdout and stderr byte for byte (no UTF-8 decode), and its exit code', async () => {
    const dir = await tempDir();
    // Arbitrary bytes: invalid UTF-8 (lone continuation bytes, 0xff), NULs, CRs, no final newline.
    const bytes = Buffer.concat([randomBytes(4 * 1024 * 1024), Buffer.from([0xff, 0xfe, 0x80, 0xc3, 0x00, 0x0d])]);
    const errOut = Buffer.from([0x77, 0x61, 0x72, 0x6e, 0xff, 0x80, 0x0a]);
    await writeFile(join(dir, 'out.bin'), bytes);
    await writeFile(join(dir, 'err.bin'), errOut);
    const ssh = join(dir, 'ssh');
    await writeFile(ssh, `#!/bin/sh\ncat "${join(dir, 'out.bin')}"\ncat "${join(dir, 'err.bin')}" >&2\nexit 3\n`, { mode: 0o755 });
    await mkdir(join(dir, 'config'));
    await writeFile(join(dir, 'config', 'remotes.json'), JSON.stringify({ hosts: [{ name: 'box', target: 'box.example', version: null, addedAt: new Date().toISOString() }] }));
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    // Text written through out/err counts too: what reaches the terminal either way.
    const io: CliIO = {
      out: (t) => out.push(Buffer.from(t.endsWith('\n') ? t : `${t}\n`)),
      err: (t) => err.push(Buffer.from(t.endsWith('\n') ? t : `${t}\n`)),
      outBytes: (b) => out.push(Buffer.from(b)),
      errBytes: (b) => err.push(Buffer.from(b)),
      env: { HOME: dir, PATH: process.env.PATH, REWIND_CONFIG_DIR: join(dir, 'config'), REWIND_SSH: ssh },
      cwd: dir,
    };
    const code = await run(['sessions', '--json', '--host', 'box'], io);
    expect(code).toBe(3);
    const got = Buffer.concat(out);
    expect(got.length).toBe(bytes.length);
    expect(got.equals(bytes)).toBe(true);
    expect(Buffer.concat(err).equals(errOut)).toBe(true);
  });
});
