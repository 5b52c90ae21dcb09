import { cp, mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import { findCodexSession } from '../agents/codex/discover.js';
import { rewindRollout } from '../agents/codex/rewind.js';
import { rewindDroid } from '../agents/droid/rewind.js';
import { transcriptLockPath } from './transcript-lock.js';

const LINEAR_ID = '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e';

async function droidSession() {
  const dir = join(await tempDir('lock-droid-'), 'sessions', '-p');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${LINEAR_ID}.jsonl`);
  await cp(join(FIXTURES, 'droid-real', `${LINEAR_ID}.jsonl`), path);
  const past = new Date(Date.now() - 3600_000);
  await utimes(path, past, past);
  return { path, project: await tempDir('lock-project-') };
}

describe('the transcript lock of in-place writers (the shared cut writer, Codex)', () => {
  it('a second in-place rewrite of the same session while the first is writing is refused, and the first completes', async () => {
    const { path, project } = await droidSession();
    let second: Promise<unknown> | null = null;
    const first = rewindDroid({
      transcriptPath: path,
      n: 1,
      mode: 'in-place',
      projectRoot: project,
      // Inside the first writer, after its checks and before its rename: a second one starts.
      beforeRevalidate: async () => {
        second = rewindDroid({ transcriptPath: path, n: 2, mode: 'in-place', projectRoot: project });
        await (second as Promise<unknown>).catch(() => undefined);
      },
    });
    const r = await first;
    await expect(second!).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE', message: expect.stringContaining('another Rewind is rewriting this transcript') });
    expect(r.prompts).toHaveLength(1);
    // The lock is gone once the first is done: a later rewrite goes through.
    await expect(readFile(transcriptLockPath(path))).rejects.toMatchObject({ code: 'ENOENT' });
    await utimes(path, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
    await expect(rewindDroid({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project })).resolves.toMatchObject({ mode: 'in-place' });
  });

  it('a stale lock (its process gone) is taken over; a fork never waits for the lock', async () => {
    const { path, project } = await droidSession();
    await writeFile(transcriptLockPath(path), JSON.stringify({ pid: 2 ** 22 + 12345, time: Date.now() }));
    await expect(rewindDroid({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project })).resolves.toMatchObject({ mode: 'in-place' });
    await writeFile(transcriptLockPath(path), JSON.stringify({ pid: process.pid, time: Date.now() }));
    await expect(rewindDroid({ transcriptPath: path, n: 1, mode: 'fork', projectRoot: project })).resolves.toMatchObject({ mode: 'fork' });
    await expect(rewindDroid({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project })).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE' });
  });

  it('Codex in place takes the same lock: refused while another Rewind holds it, through once it is released', async () => {
    const home = await tempDir('lock-codex-');
    await cp(join(FIXTURES, 'codex-0.169'), home, { recursive: true });
    const day = join(home, 'sessions', '2026', '11', '23');
    for (const f of await readdir(day)) await utimes(join(day, f), new Date('2026-11-23T12:00:00Z'), new Date('2026-11-23T12:00:00Z'));
    const path = (await findCodexSession('01a20831-1b9e-7022-895f-ab9622012353', home))!;
    const project = await tempDir('lock-codex-project-');
    const before = await readFile(path);
    await writeFile(transcriptLockPath(path), JSON.stringify({ pid: process.pid, time: Date.now() }));
    await expect(rewindRollout({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project })).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE', message: expect.stringContaining('another Rewind') });
    expect(await readFile(path)).toEqual(before);
    const { unlink } = await import('node:fs/promises');
    await unlink(transcriptLockPath(path));
    await expect(rewindRollout({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project })).resolves.toMatchObject({ mode: 'in-place' });
  });
});
