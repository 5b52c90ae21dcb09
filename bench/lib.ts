import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

/** What every benchmark is given: the scratch folder its generated data lives in (kept between runs). */
export interface BenchContext {
  dir: string;
}

/** The repository root and the tsx binary. */
export const ROOT = resolve(import.meta.dirname, '..');
export const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

export const mb = (b: number) => b / (1024 * 1024);

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median wall time of `runs` runs of a command; a failed run throws with its stderr. */
export function timeCmd(cmd: string, args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  }
  return median(times);
}
