import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext, median, ROOT, timeCmd } from './lib.js';

/**
 * `restore` of a rewritten 20k-line file, alone and with 300 files of 12 KB, next to `cp`.
 */
export async function benchRestoreBig({ dir }: BenchContext) {
  // A rewritten 20k-line file plus 300 files of 12 KB: restore must not diff what it writes.
  const { takeCheckpoint } = await import('../src/engine/store/checkpoint.js');
  const proj = join(dir, 'restore-big');
  await rm(proj, { recursive: true, force: true });
  await mkdir(join(proj, 'src'), { recursive: true });
  const big = (v: string) => Array.from({ length: 20_000 }, (_, i) => `const line${i} = '${v}-${i}-${'x'.repeat(30)}';`).join('\n') + '\n';
  const small = (i: number, v: string) => `${v} ${i} `.repeat(1200).slice(0, 12_000);
  const writeState = async (v: string, onlyBig = false) => {
    await writeFile(join(proj, 'big.ts'), big(v));
    if (!onlyBig) for (let i = 0; i < 300; i++) await writeFile(join(proj, 'src', `f${i}.txt`), small(i, v));
  };
  await writeState('A');
  const cp = await takeCheckpoint({ projectRoot: proj, trigger: 'manual' });
  // The reference: `cp` of the same files from a copy of state A.
  const refA = join(dir, 'restore-big-refA');
  await rm(refA, { recursive: true, force: true });
  execFileSync('cp', ['-a', proj, refA]);
  await rm(join(refA, '.agent'), { recursive: true, force: true });
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  const env = { ...process.env, REWIND_NO_FORWARD: '1', HOME: join(dir, 'no-home') };
  const timeOnce = (args: string[]) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`restore failed: ${r.stderr}`);
    return performance.now() - t0;
  };
  const oneBig: number[] = [];
  const all: number[] = [];
  const cpOne: number[] = [];
  const cpAll: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < 5; i++) {
    await writeState('B', true);
    oneBig.push(timeOnce(['restore', cp.manifest.id, '--force', '--project', proj]));
    await writeState('B', true);
    cpOne.push(timeCmd('cp', [join(refA, 'big.ts'), join(proj, 'big.ts')], 1));
    await writeState('B');
    all.push(timeOnce(['restore', cp.manifest.id, '--force', '--project', proj]));
    await writeState('B');
    cpAll.push(timeCmd('cp', ['-r', `${refA}/.`, proj], 1));
    node.push(timeCmd(process.execPath, ['-e', ''], 1));
  }
  await writeState('B', true);
  const t0 = performance.now();
  spawnSync(process.execPath, [cli, 'restore', cp.manifest.id, '--dry-run', '--project', proj], { env, stdio: 'ignore' });
  const dryMs = performance.now() - t0;
  const r = {
    restoreBigFileMs: Math.round(median(oneBig)),
    cpBigFileMs: Math.round(median(cpOne)),
    restore301FilesMs: Math.round(median(all)),
    cp301FilesMs: Math.round(median(cpAll)),
    nodeStartMs: Math.round(median(node)),
    dryRunWithBoundedDiffMs: Math.round(dryMs),
    target: 'well under a second (was 54-70 s)',
  };
  console.log(`restore-big: one rewritten 20k-line file ${r.restoreBigFileMs} ms (cp ${r.cpBigFileMs} ms, node -e '' ${r.nodeStartMs} ms); 300 files of 12 KB + that file ${r.restore301FilesMs} ms (cp -r ${r.cp301FilesMs} ms); its --dry-run with bounded diffs ${r.dryRunWithBoundedDiffMs} ms; medians of 5, interleaved (pre/post-restore checkpoints included)`);
  return r;
}
