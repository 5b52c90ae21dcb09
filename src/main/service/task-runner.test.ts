import { readFile, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BRANCHED, LINEAR, copyClaudeHome, inCopy, tempDir } from '../../../test/fixtures.js';
import { RewindService } from './rewind-service.js';

const WORKER_TS = resolve(import.meta.dirname, 'engine-worker.ts');

/** The built app runs the bundled worker; from source, a shim registers tsx and loads the .ts entry. */
async function workerShim(): Promise<string> {
  const shim = join(await tempDir('rewind-worker-'), 'engine-worker.mjs');
  // The ESM build of tsx's API (require.resolve gives the CommonJS one).
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  await writeFile(shim, `import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait import(${JSON.stringify(pathToFileURL(WORKER_TS).href)});\n`);
  return shim;
}

describe('the service on its engine worker thread', () => {
  const services: RewindService[] = [];
  afterAll(async () => {
    for (const s of services) await s.close();
  });

  it('parses, previews and forks off the main thread, with the same answers as inline', async () => {
    const root = await copyClaudeHome();
    const onWorker = new RewindService({ claudeRoot: root, watch: false, workerScript: await workerShim(), roots: { codex: join(root, '..', 'no-codex') } });
    const inline = new RewindService({ claudeRoot: root, watch: false, roots: { codex: join(root, '..', 'no-codex') } });
    services.push(onWorker, inline);
    expect(onWorker.runner.offThread).toBe(true);
    const a = await onWorker.handle('getTimeline', { session: inCopy(root, BRANCHED) });
    const b = await inline.handle('getTimeline', { session: inCopy(root, BRANCHED) });
    expect(a, JSON.stringify(a).slice(0, 300)).toEqual(b);
    const prompt = (a as { ok: true; value: { prompts: { uuid: string; text: string }[] } }).value.prompts.find((p) => p.text === 'WRITE d.txt branch two')!;
    const pa = await onWorker.handle('previewRewind', { session: '9ee005d2', promptUuid: prompt.uuid, mode: 'fork' });
    const pb = await inline.handle('previewRewind', { session: '9ee005d2', promptUuid: prompt.uuid, mode: 'fork' });
    expect(pa).toEqual(pb);
    const linear = inCopy(root, LINEAR);
    const past = new Date(Date.now() - 3600_000);
    await utimes(linear, past, past);
    const t = await onWorker.handle('getTimeline', { session: linear });
    const last = (t as { ok: true; value: { prompts: { uuid: string }[] } }).value.prompts.at(-1)!;
    const fork = await onWorker.handle('applyRewind', { session: linear, promptUuid: last.uuid, mode: 'fork' });
    expect(fork.ok).toBe(true);
    const forkPath = (fork as { ok: true; value: { forkPath: string } }).value.forkPath;
    expect(await readFile(forkPath, 'utf8')).toContain('EDIT notes.md alpha gamma');
    // Errors from the worker keep their code.
    const bad = await onWorker.handle('applyRewind', { session: linear, promptUuid: 'nope', mode: 'fork' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(join(forkPath, '..')).toBe(join(linear, '..'));
  });
});
