import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LINEAR, tempDir } from '../../../test/fixtures.js';
import { removeTempDirs } from '../../../test/temp.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';
import { RewindService } from './rewind-service.js';

afterEach(removeTempDirs);

/**
 * The queue a hook leaves while a project's first checkpoint is read by its detached child
 * (engine/store/background-checkpoint.ts), written here as the hook writes it: this process stands
 * for the child (alive while the test runs).
 */
async function queue(project: string, transcript: string, promptUuid: string) {
  await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
  const job = { id: '20261128T090000000Z-aaaa', time: Date.now() - 5000, trigger: 'prompt', transcript: { transcript_path: transcript, session_id: null, agent: 'claude', prompt_uuid: promptUuid, prompt_id: null, byte_offset_end: 0, prefix_sha256: '' }, touched: [], pre: {}, uncovered: false };
  await writeFile(join(project, '.agent', 'rewind', 'background.json'), JSON.stringify({ pid: process.pid, started: Date.now() - 5000, jobs: [job, { ...job, id: '20261128T090001000Z-bbbb', transcript: { ...job.transcript, prompt_uuid: 'not-yet' } }] }));
}

describe('a first checkpoint read in the background, in the window', () => {
  it("marks its prompt pending (when it started, how many wait), the restore is refused until it lands, and the mark goes when the queue does", async () => {
    const home = await tempDir('rewind-first-cp-');
    const project = join(home, 'linear');
    await mkdir(project, { recursive: true });
    const dir = join(home, 'claude', 'projects', '-linear');
    await mkdir(dir, { recursive: true });
    const transcript = join(dir, '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl');
    await writeFile(transcript, (await readFile(LINEAR, 'utf8')).replaceAll('/home/dev/projects/linear', project));
    const svc = new RewindService({ claudeRoot: join(home, 'claude'), roots: {}, env: {}, prefsFile: join(home, 'prefs.json'), cacheDir: join(home, 'cache') });
    await svc.start();
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    try {
      const first = (await svc.handle('getTimeline', { session: transcript })) as { ok: true; value: Timeline };
      const p1 = first.value.prompts[0]!;
      expect(p1.checkpoint).toBeNull();
      await queue(project, transcript, p1.uuid);
      const t = (await svc.handle('getTimeline', { session: transcript })) as { ok: true; value: Timeline };
      expect(t.value.prompts[0]!.checkpoint).toMatchObject({ id: '20261128T090000000Z-aaaa', pending: { queued: 2 } });
      expect(t.value.prompts.slice(1).every((p) => p.checkpoint === null)).toBe(true);
      // The engine refuses a restore that the first checkpoint would stand for, and says why.
      const r = await svc.handle('previewRestore', { project, ref: p1.uuid, session: transcript });
      expect(r).toMatchObject({ ok: false, error: { code: 'NO_CHECKPOINT', message: expect.stringContaining('first checkpoint in progress') } });
      // The queue is gone (the child finished, here with nothing stored): the open timeline loses the mark.
      await rm(join(project, '.agent', 'rewind', 'background.json'));
      await vi.waitFor(() => expect(events.some((e) => e.type === 'timelineChanged' && e.upserts.some((p) => p.uuid === p1.uuid && p.checkpoint === null))).toBe(true), { timeout: 8000, interval: 50 });
    } finally {
      await svc.close();
    }
  });
});
