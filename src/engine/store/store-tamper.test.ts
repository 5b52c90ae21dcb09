import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { readJournal } from '../journal/record.js';
import { withJournals } from '../journal/session-annotations.js';
import { takeCheckpoint } from './checkpoint.js';
import { checkpointsDir } from './manifest.js';
import { resolveRestoreTarget, restore } from './restore.js';
import { recoverPending } from './restore-intent.js';

/**
 * A cloned project can ship its own `.agent/rewind/` (the store's .gitignore is Rewind's, a
 * repository can commit the files anyway): a checkpoint naming paths no checkpoint holds, and
 * FIFOs where the journal or a restore's intent goes. Probed for issue #34.
 */

async function project(prefix: string) {
  const base = await tempDir(prefix);
  const root = join(base, 'proj');
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'src', 'a.txt'), 'v1\n');
  return { base, root, store: join(root, '.agent', 'rewind') };
}

describe('a checkpoint that names .git or the store itself', () => {
  for (const planted of ['.git/hooks/pre-commit', '.agent/rewind/journal.jsonl', '.git']) {
    it(`restore refuses "${planted}" in one line and writes nothing`, async () => {
      const p = await project('tamper-git-');
      await mkdir(join(p.root, '.git', 'hooks'), { recursive: true });
      const m = (await takeCheckpoint({ projectRoot: p.root, trigger: 'manual' })).manifest;
      const file = join(checkpointsDir(p.root), `${m.id}.json`);
      const raw = JSON.parse(await readFile(file, 'utf8')) as { entries: unknown[][] };
      const blob = raw.entries.find((e) => e[0] === 'src/a.txt')!;
      raw.entries.push([planted, 'f', blob[2], 0o755, blob[4], blob[5], blob[6]]);
      await writeFile(file, JSON.stringify(raw));
      await writeFile(join(p.root, 'src', 'a.txt'), 'v2\n');
      const journal = await readFile(join(p.store, 'journal.jsonl'), 'utf8').catch(() => null);
      const target = await resolveRestoreTarget({ projectRoot: p.root, ref: m.id });
      await expect(restore(p.root, target, { force: true })).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/checkpoints never hold/) });
      expect(await readFile(join(p.root, '.git', 'hooks', 'pre-commit'), 'utf8').catch(() => null)).toBeNull();
      expect(await readFile(join(p.store, 'journal.jsonl'), 'utf8').catch(() => null)).toBe(journal);
      expect(await readFile(join(p.root, 'src', 'a.txt'), 'utf8')).toBe('v2\n');
    });
  }
});

describe.skipIf(process.platform === 'win32')('FIFOs shipped in the store never hang a command', () => {
  it('a FIFO as a pending intent: recovery skips it, restore goes on', async () => {
    const p = await project('tamper-fifo-pending-');
    const m = (await takeCheckpoint({ projectRoot: p.root, trigger: 'manual' })).manifest;
    await mkdir(join(p.store, 'pending'), { recursive: true });
    execFileSync('mkfifo', [join(p.store, 'pending', 'x.json')]);
    const t = Date.now();
    expect(await recoverPending(p.root)).toEqual([]);
    await writeFile(join(p.root, 'src', 'a.txt'), 'v2\n');
    await restore(p.root, await resolveRestoreTarget({ projectRoot: p.root, ref: m.id }), { force: true });
    expect(await readFile(join(p.root, 'src', 'a.txt'), 'utf8')).toBe('v1\n');
    expect(Date.now() - t).toBeLessThan(5_000);
  }, 15_000);

  it('a FIFO as the journal: history and the session list read no journal, at once', async () => {
    const p = await project('tamper-fifo-journal-');
    await mkdir(p.store, { recursive: true });
    execFileSync('mkfifo', [join(p.store, 'journal.jsonl')]);
    const t = Date.now();
    expect(await readJournal(p.root)).toEqual([]);
    const sessions = await withJournals([{ id: 's', cwd: p.root, transcriptPath: join(p.base, 't.jsonl'), sizeBytes: 0, live: true, forkOf: null, forkAt: null } as never]);
    expect(sessions).toHaveLength(1);
    expect(Date.now() - t).toBeLessThan(3_000);
  }, 15_000);
});
