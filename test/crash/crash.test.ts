import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../fixtures.js';
import { inPlaceTrial, restoreTrial, revertTrial, undoTrial, type TrialResult } from './trials.js';

// A small count here; `npm run bench -- crash` runs 100+ of each.
const TRIALS = 12;
const delays = (maxMs: number) => Array.from({ length: TRIALS }, (_, i) => (i === TRIALS - 1 ? null : Math.round(((i + Math.random()) / (TRIALS - 1)) * maxMs)));

async function runAll(trial: (ms: number | null, i: number) => Promise<TrialResult>, maxMs: number) {
  const outcomes: string[] = [];
  const problems: string[] = [];
  const ds = delays(maxMs);
  for (let i = 0; i < ds.length; i++) {
    const r = await trial(ds[i]!, i);
    outcomes.push(r.outcome);
    problems.push(...r.problems.map((p) => `trial ${i} (kill at ${ds[i]} ms, ${r.outcome}): ${p}`));
  }
  return { outcomes, problems };
}

describe.skipIf(!existsSync(BUILT_CLI))('crash and concurrency (kill -9 at random moments, an agent appending)', () => {
  it('back --in-place (sometimes two at once): old or new transcript, zero appended lines lost, nothing outside', async () => {
    const { outcomes, problems } = await runAll((ms, i) => inPlaceTrial(ms, i % 2 ? 'fd' : 'path', i % 3 === 2), 400);
    expect(problems).toEqual([]);
    expect(outcomes.length).toBe(TRIALS);
  }, 180_000);

  it('restore: the tree before or after, rolled back or completed by the next run, journal agreeing', async () => {
    const { outcomes, problems } = await runAll((ms) => restoreTrial(ms), 700);
    expect(problems).toEqual([]);
    // The trials did reach both ends: at least one completed restore.
    expect(outcomes.some((o) => o.endsWith('restored'))).toBe(true);
  }, 180_000);

  it('revert of a prompt: the same', async () => {
    const { outcomes, problems } = await runAll((ms) => revertTrial(ms), 700);
    expect(problems).toEqual([]);
    expect(outcomes.some((o) => o.endsWith('reverted'))).toBe(true);
  }, 180_000);

  it('undo of a restore: the same', async () => {
    const { outcomes, problems } = await runAll((ms) => undoTrial(ms), 700);
    expect(problems).toEqual([]);
    expect(outcomes.some((o) => o.endsWith('undone'))).toBe(true);
  }, 240_000);
});
