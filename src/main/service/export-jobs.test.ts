import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import { removeTempDirs } from '../../../test/temp.js';
import type { RewindEvent } from '../../shared/contract.js';
import { RewindService } from './rewind-service.js';

afterEach(removeTempDirs);

/** The Claude session with the most turns among the fixtures: an export that reads 40-odd turns one by one. */
const SESSION = join(FIXTURES, 'public', 'claude-1.0.98-real-summary-task-subagents.jsonl');

async function service() {
  const dir = await tempDir();
  const file = join(dir, 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl');
  await copyFile(SESSION, file);
  const svc = new RewindService({ claudeRoot: dir, watch: false, prefsFile: join(dir, 'prefs.json'), cacheDir: join(dir, 'cache'), roots: {}, env: {} });
  const events: RewindEvent[] = [];
  svc.onEvent((e) => events.push(e));
  return { svc, file, events };
}

describe('export jobs: progress from the service, Cancel stops the exporter', () => {
  it('an export with a job says how many turns it read, up to all of them', async () => {
    const { svc, file, events } = await service();
    const r = await svc.handle('exportSession', { session: file, format: 'md', job: 'j1' });
    expect(r.ok).toBe(true);
    const progress = events.filter((e) => e.type === 'operationProgress' && e.id === 'export-j1');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ fraction: 1, message: 'Read 2 of 2 turns' });
    // Finished: nothing left to cancel.
    expect(await svc.handle('cancelExport', { job: 'j1' })).toEqual({ ok: true, value: { cancelled: false } });
  });

  it('cancelled while it reads: it answers CANCELLED, and stops before the turns left', async () => {
    const { svc, file, events } = await service();
    // Cancel as soon as the first turn was counted: the reads that would follow never happen.
    svc.onEvent((e) => {
      if (e.type === 'operationProgress' && e.id === 'export-j2') void svc.handle('cancelExport', { job: 'j2' });
    });
    const r = await svc.handle('exportSession', { session: file, format: 'html', job: 'j2' });
    expect(r).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    const read = events.filter((e) => e.type === 'operationProgress' && e.id === 'export-j2');
    expect(read.every((e) => e.type === 'operationProgress' && (e.fraction ?? 0) < 1)).toBe(true);
  });
});
