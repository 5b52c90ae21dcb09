// `npm test`: every tier that exists, in order, then one summary line CI can read.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules', '.bin', name);
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function step(name, cmd, args, env = {}) {
  console.log(`\n▶ ${name}: ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...env } });
  if (r.status !== 0) failures.push(name);
  return r.status === 0;
}

function vitestTier(name, config) {
  mkdirSync(join(root, 'test-results'), { recursive: true });
  const out = join(root, 'test-results', `${name}.json`);
  const ok = step(name, bin('vitest'), ['run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile=${out}`]);
  if (existsSync(out)) {
    const r = JSON.parse(readFileSync(out, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    skipped += r.numPendingTests + (r.numTodoTests ?? 0);
  } else if (!ok) failed++;
}

step('typecheck', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']);
step('lint', bin('eslint'), ['.']);
step('build', 'npm', ['run', 'build', '--silent']);
vitestTier('unit', 'vitest.config.ts');
if (existsSync(join(root, 'vitest.conformance.config.ts'))) vitestTier('conformance', 'vitest.conformance.config.ts');
if (existsSync(join(root, 'playwright.config.ts'))) {
  const out = join(root, 'test-results', 'e2e.json');
  // Playwright's compiled-test cache goes with the project's other tool caches, not into TMPDIR.
  const ok = step('e2e', bin('playwright'), ['test'], { PLAYWRIGHT_JSON_OUTPUT_NAME: out, PWTEST_CACHE_DIR: join(root, 'node_modules', '.cache', 'playwright') });
  if (existsSync(out)) {
    const s = JSON.parse(readFileSync(out, 'utf8')).stats ?? {};
    passed += s.expected ?? 0;
    failed += (s.unexpected ?? 0) + (s.flaky ?? 0);
    skipped += s.skipped ?? 0;
  } else if (!ok) failed++;
}

console.log('');
if (failures.length) console.log(`failed steps: ${failures.join(', ')}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failures.length || failed ? 1 : 0);
