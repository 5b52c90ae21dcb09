import { inPlaceTrial, restoreTrial, revertTrial, undoTrial, type TrialResult } from '../test/crash/trials.js';

/** kill -9 at random moments of each operation, `n` times each; every problem is printed. */
export async function runCrashBench(n: number): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { trialsEach: n };
  const kinds: [string, (ms: number | null, i: number) => Promise<TrialResult>, number][] = [
    ['back --in-place', (ms, i) => inPlaceTrial(ms, i % 2 ? 'fd' : 'path', i % 3 === 2), 400],
    // Every other agent's in-place writer (the shared one): kills over a longer span, their runs take longer.
    ...(['droid', 'qwen', 'gemini', 'codex'] as const).map((agent): [string, (ms: number | null, i: number) => Promise<TrialResult>, number] => [`back --in-place (${agent})`, (ms, i) => inPlaceTrial(ms, i % 2 ? 'fd' : 'path', i % 3 === 2, agent), 800]),
    ['restore', (ms) => restoreTrial(ms), 700],
    ['revert', (ms) => revertTrial(ms), 700],
    ['undo', (ms) => undoTrial(ms), 700],
  ];
  // CRASH_ONLY=restore (or a comma list) runs a subset.
  const only = process.env.CRASH_ONLY?.split(',');
  for (const [name, trial, maxMs] of kinds) {
    if (only && !only.some((o) => name.includes(o))) continue;
    const outcomes = new Map<string, number>();
    let failed = 0;
    for (let i = 0; i < n; i++) {
      const ms = i % 10 === 9 ? null : Math.round(Math.random() * maxMs);
      const r = await trial(ms, i);
      outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
      if (r.problems.length) {
        failed++;
        console.log(`crash: ${name} trial ${i} (kill at ${ms} ms, ${r.outcome}): ${r.problems.join('; ')}`);
      }
    }
    out[name] = { failed, outcomes: Object.fromEntries(outcomes) };
    console.log(`crash: ${name}: ${n} trials, ${failed} with a problem; ${[...outcomes].map(([k, v]) => `${v}x ${k}`).join(', ')}`);
  }
  return out;
}
