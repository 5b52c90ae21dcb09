import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeExportFile } from './export-file.js';

let dir: string;
let root: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rewind-exf-'));
  root = join(dir, 'agent-root');
  await mkdir(join(root, 'projects', '-x'), { recursive: true });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const t = (force = false, source?: string) => ({ force, roots: [root], source });

describe('writeExportFile', () => {
  it('creates a user-only file; a file there (one that appeared during the export too) is never replaced without --force', async () => {
    const out = join(dir, 'a.md');
    await writeExportFile(out, 'one', t());
    expect(await readFile(out, 'utf8')).toBe('one');
    expect(((await stat(out)).mode & 0o777).toString(8)).toBe('600');
    await writeFile(out, 'the user wrote this');
    await expect(writeExportFile(out, 'two', t())).rejects.toThrow(/exists \(pass --force to replace it\)/);
    expect(await readFile(out, 'utf8')).toBe('the user wrote this');
    await writeExportFile(out, 'three', t(true));
    expect(await readFile(out, 'utf8')).toBe('three');
  });

  it.skipIf(process.platform === 'win32')('refuses a FIFO and a device node, even with --force, and leaves them as they are', async () => {
    const fifo = join(dir, 'pipe.md');
    execFileSync('mkfifo', [fifo]);
    for (const force of [false, true]) {
      await expect(writeExportFile(fifo, 'x', t(force))).rejects.toThrow(/not a regular file/);
      expect((await stat(fifo)).isFIFO()).toBe(true);
      await expect(writeExportFile('/dev/null', 'x', t(force))).rejects.toThrow(/not a regular file/);
      expect((await stat('/dev/null')).isCharacterDevice()).toBe(true);
    }
  });

  it('refuses anything inside an agent root, the transcript itself, another transcript and a link', async () => {
    const transcript = join(root, 'projects', '-x', 'abc.jsonl');
    await writeFile(transcript, '{"type":"user","sessionId":"abc"}\n');
    await expect(writeExportFile(transcript, 'x', t(true, transcript))).rejects.toThrow(/inside an agent's folder/);
    await expect(writeExportFile(join(root, 'new.md'), 'x', t(true))).rejects.toThrow(/inside an agent's folder/);
    // Through a link to the root's folder.
    await symlink(join(root, 'projects'), join(dir, 'via'));
    await expect(writeExportFile(join(dir, 'via', '-x', 'abc.jsonl'), 'x', t(true))).rejects.toThrow(/inside an agent's folder/);
    const elsewhere = join(dir, 'other.jsonl');
    await writeFile(elsewhere, '{"type":"session_meta","payload":{}}\n');
    await expect(writeExportFile(elsewhere, 'x', t(true, elsewhere))).rejects.toThrow(/session being exported/);
    await expect(writeExportFile(elsewhere, 'x', t(true))).rejects.toThrow(/looks like an agent transcript/);
    await symlink(join(dir, 'target.md'), join(dir, 'link.md'));
    await expect(writeExportFile(join(dir, 'link.md'), 'x', t(true))).rejects.toThrow(/symbolic link/);
    expect(await readFile(transcript, 'utf8')).toBe('{"type":"user","sessionId":"abc"}\n');
    expect(await readFile(elsewhere, 'utf8')).toBe('{"type":"session_meta","payload":{}}\n');
  });
});
