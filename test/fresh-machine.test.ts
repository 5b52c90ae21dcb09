import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures.js';
import { tempDir } from './temp.js';

/**
 * The unit files most sensitive to the machine they run on (recorded project folders, agents'
 * homes, the user's config and prefs, locks, hooks settings), run as a new user would: HOME and
 * TMPDIR are new empty folders. They pass, and TMPDIR is as empty afterwards as before.
 */
const PATH_SENSITIVE = [
  'src/cli/main.test.ts',
  'src/cli/hooks.test.ts',
  'src/cli/search.test.ts',
  'src/cli/insight-cli.test.ts',
  'src/engine/ui-prefs.test.ts',
  'src/engine/io/transcript-lock.test.ts',
  'src/engine/agents/droid/code-history.test.ts',
  'src/engine/agents/gemini/code-history.test.ts',
  'src/engine/agents/qwen/code-history.test.ts',
  'src/main/service/more-agents.test.ts',
  'src/main/service/agent-code-restore.test.ts',
  'src/main/service/prompt-checkpoints.test.ts',
  'test/reliability/journal-guard.test.ts',
];

/** This run's own variables (vitest's, the test cache's) stay out: the inner run is a new one. */
function newUserEnv(home: string, tmp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VITEST|REWIND_|TSX_|JITI_|NODE_ENV$|TEST$)/.test(k)) env[k] = v;
  return { ...env, HOME: home, USERPROFILE: home, TMPDIR: tmp, TEMP: tmp, TMP: tmp };
}

describe('a fresh machine', () => {
  it('the path-sensitive unit files pass with an empty HOME and TMPDIR, and leave TMPDIR empty', async () => {
    const home = await tempDir('rewind-fresh-home-');
    const tmp = await tempDir('rewind-fresh-tmp-');
    const report = join(await tempDir('rewind-fresh-report-'), 'report.json');
    const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const args = [vitest, 'run', '--reporter=json', `--outputFile=${report}`, ...PATH_SENSITIVE];
    const child = spawn(process.execPath, args, { cwd: ROOT, env: newUserEnv(home, tmp), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    const r = JSON.parse(readFileSync(report, 'utf8')) as { numTotalTests: number; numFailedTests: number; numPassedTests: number; testResults: { name: string; status: string; message: string }[] };
    const failed = r.testResults.filter((f) => f.status !== 'passed').map((f) => `${f.name}: ${f.message.slice(0, 300)}`);
    expect(failed, stderr.slice(-2000)).toEqual([]);
    expect(r.numFailedTests).toBe(0);
    expect(r.numPassedTests).toBeGreaterThan(50);
    expect(code).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  }, 180_000);
});
