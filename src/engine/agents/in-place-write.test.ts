import { appendFileSync, closeSync, openSync, writeSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { backupPathFor, beforeUndoPathFor, writerSessionId } from './backup-path.js';
import { holdTranscript, replaceInPlace } from './in-place-write.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function setup() {
  const top = await tempDir('rewind-inplace-');
  dirs.push(top);
  const path = join(top, 'session.jsonl');
  const original = Array.from({ length: 20 }, (_, i) => `{"n":${i}}\n`).join('');
  await writeFile(path, original);
  const project = join(top, 'project');
  await mkdir(project);
  return { top, path, original, project };
}

const cut = Buffer.from('{"n":0}\n{"n":1}\n');

describe('the shared in-place writer', () => {
  it('carries over what reaches the old inode after the last look (by path and through a held handle), and the backup shares that inode', async () => {
    const s = await setup();
    const agentFd = openSync(s.path, 'a');
    try {
      const held = await holdTranscript(s.path);
      try {
        const out = await replaceInPlace({
          held,
          projectRoot: s.project,
          sessionId: 'abc-123',
          time: 0,
          write: (fh) => fh.writeFile(cut),
          afterLastLook: async () => {
            appendFileSync(s.path, '{"late":"by-path"}\n');
            writeSync(agentFd, '{"late":"held"}\n');
          },
        });
        expect(out.carried).toBe(Buffer.byteLength('{"late":"by-path"}\n{"late":"held"}\n'));
        const now = await readFile(s.path, 'utf8');
        expect(now).toBe(`${cut.toString()}{"late":"by-path"}\n{"late":"held"}\n`);
        // An agent that keeps writing to the file it holds: its lines land in the backup (the same inode).
        writeSync(agentFd, '{"later":"held"}\n');
        const backup = await readFile(out.backupPath, 'utf8');
        expect(backup).toBe(`${s.original}{"late":"by-path"}\n{"late":"held"}\n{"later":"held"}\n`);
        expect(out.original.size).toBe(Buffer.byteLength(s.original));
        expect(out.result.size).toBe(Buffer.byteLength(now));
      } finally {
        await held.fh.close();
      }
    } finally {
      closeSync(agentFd);
    }
  });

  it('an append or a replaced file before the last look: nothing replaced, no backup or temp left', async () => {
    for (const spoil of ['append', 'replace'] as const) {
      const s = await setup();
      const held = await holdTranscript(s.path);
      try {
        const write = async (fh: FileHandle) => {
          await fh.writeFile(cut);
          if (spoil === 'append') await appendFile(s.path, '{"late":1}\n');
          else {
            await writeFile(join(s.top, 'other'), s.original);
            await rename(join(s.top, 'other'), s.path);
          }
        };
        await expect(replaceInPlace({ held, projectRoot: s.project, sessionId: 'abc', time: 0, write })).rejects.toMatchObject({ code: 'TRANSCRIPT_CHANGED' });
        expect((await readFile(s.path, 'utf8')).startsWith(s.original)).toBe(true);
        expect(await readdir(join(s.project, '.agent', 'rewind'))).not.toContain('transcript-backup');
        expect((await readdir(s.top)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      } finally {
        await held.fh.close();
      }
    }
  });

  it('a FIFO or a folder is refused before it is opened', async () => {
    const s = await setup();
    await expect(holdTranscript(s.project)).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT' });
    await expect(holdTranscript(join(s.top, 'missing.jsonl'))).rejects.toMatchObject({ code: 'NO_TRANSCRIPT' });
    if (process.platform !== 'win32') {
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkfifo', [join(s.top, 'fifo.jsonl')]);
      await expect(holdTranscript(join(s.top, 'fifo.jsonl'))).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT' });
    }
  });
});

describe('backup paths: ids, never paths', () => {
  it('an id names a file in transcript-backup/; anything else is one UNSAFE_PATH line', async () => {
    const s = await setup();
    expect(backupPathFor(s.project, '9ee005d2-71bf-404d-813f-f64902d8df5f', 0)).toBe(join(s.project, '.agent', 'rewind', 'transcript-backup', '9ee005d2-71bf-404d-813f-f64902d8df5f-1970-01-01T00-00-00-000Z.jsonl'));
    expect(backupPathFor(s.project, 'rollout_01a2-x', 0)).toContain('rollout_01a2-x-');
    for (const bad of ['../../../../tmp/x', '..', '', 'a/b', 'a\\b', '.hidden', 'x\0y', '/etc/passwd', 'C:x', 'a'.repeat(200)]) {
      expect(() => backupPathFor(s.project, bad, 0)).toThrow(expect.objectContaining({ code: 'UNSAFE_PATH' }));
      expect(() => beforeUndoPathFor(s.project, bad, 0)).toThrow(expect.objectContaining({ code: 'UNSAFE_PATH' }));
      expect(() => writerSessionId(bad, '/x.jsonl')).toThrow(expect.objectContaining({ code: 'UNSAFE_PATH' }));
    }
    expect(() => writerSessionId(null, '/x.jsonl')).toThrow(/is not a valid id/);
    expect((await stat(s.project)).isDirectory()).toBe(true);
    expect(await readdir(s.project)).toEqual([]);
  });
});

describe('the shared in-place writer: an earlier backup of the same name', () => {
  it('is never removed: the second rewrite in the same millisecond fails and the first backup stays', async () => {
    const s = await setup();
    const first = await holdTranscript(s.path);
    let firstBackup: string;
    try {
      firstBackup = (await replaceInPlace({ held: first, projectRoot: s.project, sessionId: 'same', time: 0, write: (fh) => fh.writeFile(s.original.slice(0, 16)) })).backupPath;
    } finally {
      await first.fh.close();
    }
    const second = await holdTranscript(s.path);
    try {
      await expect(replaceInPlace({ held: second, projectRoot: s.project, sessionId: 'same', time: 0, write: (fh) => fh.writeFile(cut) })).rejects.toMatchObject({ code: 'EEXIST' });
    } finally {
      await second.fh.close();
    }
    expect(await readFile(firstBackup, 'utf8')).toBe(s.original);
    expect(await readFile(s.path, 'utf8')).toBe(s.original.slice(0, 16));
  });
});
