import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateTranscript } from './generate-transcript.js';
import { type BenchContext, median } from './lib.js';

/**
 * The window following a growing session: a prompt appended to a 100 MiB transcript to the service's
 * timeline event.
 */
export async function benchLive({ dir }: BenchContext) {
  const { RewindService } = await import('../src/main/service/rewind-service.js');
  const { appendFile: append } = await import('node:fs/promises');
  const root = join(dir, 'live-claude');
  const file = join(root, 'projects', '-home-dev-project', '00000000-0000-4000-8000-00000000beef.jsonl');
  await rm(root, { recursive: true, force: true });
  await mkdir(join(file, '..'), { recursive: true });
  await generateTranscript(file, 100 * 1024 * 1024);
  const service = new RewindService({ claudeRoot: root });
  await service.start();
  const t = await service.handle('getTimeline', { session: file });
  if (!t.ok) throw new Error(t.error.message);
  let leaf = (t.value as { activeLeaf: string }).activeLeaf;
  const lat: number[] = [];
  for (let i = 0; i < 15; i++) {
    const uuid = `bench-live-${i}-0000-4000-8000-000000000000`;
    const line = { type: 'user', uuid, parentUuid: leaf, isSidechain: false, sessionId: '00000000-0000-4000-8000-00000000beef', timestamp: new Date().toISOString(), message: { role: 'user', content: `live prompt ${i}` } };
    const got = new Promise<number>((resolvePromise) => {
      const off = service.onEvent((e) => {
        if (e.type === 'timelineChanged' && e.upserts.some((p) => p.uuid === uuid)) {
          off();
          resolvePromise(performance.now());
        }
      });
    });
    const t0 = performance.now();
    await append(file, `${JSON.stringify(line)}\n`);
    lat.push((await got) - t0);
    leaf = uuid;
    await new Promise((r2) => setTimeout(r2, 50));
  }
  await service.close();
  const r = { transcriptMiB: 100, medianMs: +median(lat).toFixed(1), maxMs: +Math.max(...lat).toFixed(1), target: 'median < 150 ms' };
  console.log(`live: append of a prompt to a 100 MiB transcript -> timeline event: median ${r.medianMs} ms, max ${r.maxMs} ms (target: median < 150 ms)`);
  return r;
}
