import { execFileSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { generateTranscript } from './generate-transcript.js';
import { type BenchContext, mb, median, ROOT, TSX } from './lib.js';

/**
 * Full parse of a generated 200 MiB transcript: the engine's throughput and peak memory next to a bare
 * `JSON.parse`-every-line loop, each in its own process (`parse-worker.ts`), medians of 3.
 */
export async function benchParse({ dir }: BenchContext) {
  const file = join(dir, 'parse-200mb.jsonl');
  const st = await stat(file).catch(() => null);
  if (!st || st.size < 200 * 1024 * 1024) await generateTranscript(file, 200 * 1024 * 1024);
  const size = (await stat(file)).size;
  const run = (mode: string) => JSON.parse(execFileSync(TSX, [join(ROOT, 'bench', 'parse-worker.ts'), mode, file], { encoding: 'utf8', maxBuffer: 1 << 20 }));
  const bare: { ms: number; peakRss: number; baseRss: number }[] = [];
  const engine: { ms: number; peakRss: number; baseRss: number; detail: unknown }[] = [];
  for (let i = 0; i < 3; i++) {
    bare.push(run('bare'));
    engine.push(run('engine'));
  }
  const bareMs = median(bare.map((b) => b.ms));
  const engMs = median(engine.map((b) => b.ms));
  const peak = Math.max(...engine.map((e) => e.peakRss));
  const r = {
    fileMiB: +mb(size).toFixed(1),
    bareMiBs: +(mb(size) / (bareMs / 1000)).toFixed(1),
    engineMiBs: +(mb(size) / (engMs / 1000)).toFixed(1),
    ratio: +(bareMs / engMs).toFixed(2),
    enginePeakRssMiB: +mb(peak).toFixed(0),
    memoryVsFile: +(peak / size).toFixed(2),
    detail: engine[0]!.detail,
    targets: { ratio: '>= 0.5', memoryVsFile: '< 2' },
  };
  console.log(`parse: ${r.fileMiB} MiB  bare JSON.parse loop ${r.bareMiBs} MiB/s  engine ${r.engineMiBs} MiB/s  (ratio ${r.ratio}, target >= 0.5)  peak RSS ${r.enginePeakRssMiB} MiB = ${r.memoryVsFile}x file (target < 2x)`);
  return r;
}
