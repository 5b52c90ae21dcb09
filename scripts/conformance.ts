// `npm run conformance`: the conformance tier on the pinned CLIs, with a table of cases right per agent.
// `npm run conformance -- --latest`: the newest published release of every agent's CLI instead (installed
// into ~/.cache/rewind/<dir> by the tests' helpers), each rewind and restore judged by that release, and
// what changed in its format since the last judged recording (test/fixtures). `--write` records the
// releases that passed every case in the agents' judged.json and regenerates docs/agents.md's table.
// `--agent <id>` (repeatable) judges only those agents.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import mri from 'mri';
import { describeChanges, formatChanges, shapeOf, type Shape } from '../test/versions/format-shape.js';
import { AGENTS_DIR, judgedTable, readAllJudged, withTable } from '../test/versions/judged-table.js';
import { compareVersions, type JudgedVersions } from '../src/engine/agents/judged.js';

const ROOT = join(import.meta.dirname, '..');
const FIX = join(ROOT, 'test', 'fixtures');

interface Agent {
  id: string;
  /** The env var the tests' helpers read for the version to install and run. */
  env: string;
  pinned: string;
  files: string[];
  /** The last judged recording: its JSONL files, and (when it has home-files.txt) its folder's files. */
  fixture: string;
}

const C = 'test/conformance';
const AGENTS: Agent[] = [
  { id: 'claude', env: 'REWIND_CLAUDE_VERSION', pinned: '2.1.332', files: [`${C}/rewind.test.ts`, `${C}/restore.test.ts`, `${C}/mcp.test.ts`], fixture: join(FIX, 'claude-code-2.1.330', 'home', '.claude') },
  { id: 'codex', env: 'REWIND_CODEX_VERSION', pinned: '0.171.0', files: [`${C}/codex.test.ts`, `${C}/codex-code.test.ts`], fixture: join(FIX, 'codex-0.171') },
  { id: 'droid', env: 'REWIND_DROID_VERSION', pinned: '0.225.1', files: [`${C}/agents/droid.test.ts`, `${C}/agents/droid-code.test.ts`, `${C}/agents/droid-restore.test.ts`], fixture: join(FIX, 'droid-real') },
  { id: 'qwen', env: 'REWIND_QWEN_VERSION', pinned: '0.24.4', files: [`${C}/agents/qwen.test.ts`, `${C}/agents/qwen-branch.test.ts`, `${C}/agents/qwen-code.test.ts`, `${C}/agents/qwen-restore.test.ts`, `${C}/agents/qwen-mcp.test.ts`], fixture: join(FIX, 'qwen-real') },
  { id: 'gemini', env: 'REWIND_GEMINI_VERSION', pinned: '0.61.0', files: [`${C}/agents/gemini.test.ts`, `${C}/agents/gemini-code.test.ts`, `${C}/agents/gemini-restore.test.ts`, `${C}/agents/gemini-mcp.test.ts`], fixture: join(FIX, 'gemini-real') },
  { id: 'copilot', env: 'REWIND_COPILOT_VERSION', pinned: '1.0.102', files: [`${C}/agents/copilot.test.ts`, `${C}/agents/copilot-code.test.ts`], fixture: join(FIX, 'copilot-1.0.102') },
  { id: 'opencode', env: 'REWIND_OPENCODE_VERSION', pinned: '1.18.33', files: [`${C}/agents/opencode.test.ts`, `${C}/agents/opencode-code.test.ts`], fixture: join(FIX, 'opencode-1.18.33') },
  { id: 'kilo', env: 'REWIND_KILO_VERSION', pinned: '7.7.7', files: [`${C}/agents/kilo.test.ts`, `${C}/agents/kilo-code.test.ts`], fixture: join(FIX, 'kilo-7.7.7') },
];

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    const st = statSync(p);
    return st.isDirectory() ? walk(p) : [p];
  });
}

/** A recording's shape: the lines of its JSONL files, its files (a fixture lists them in home-files.txt, else none are compared). */
function shapeOfDir(dir: string, listed: 'walk' | 'home-files'): Shape {
  const all = walk(dir);
  const records = all.filter((f) => f.endsWith('.jsonl')).flatMap((f) => readFileSync(f, 'utf8').split('\n'));
  const homeFiles = join(dir, 'home-files.txt');
  const files = listed === 'walk' ? all.map((f) => relative(dir, f)) : existsSync(homeFiles) ? readFileSync(homeFiles, 'utf8').split('\n').filter(Boolean) : null;
  return shapeOf(records, files ?? []);
}

function npmLatest(pkg: string): string {
  const r = spawnSync('npm', ['view', pkg, 'version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm view ${pkg} version failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

interface Result {
  agent: string;
  version: string;
  passed: number;
  total: number;
  changes: string;
}

function runFiles(files: string[], env: NodeJS.ProcessEnv): { passed: number; total: number } {
  const out = join(mkdtempSync(join(tmpdir(), 'rewind-conformance-report-')), 'report.json');
  spawnSync(join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', '--config', 'vitest.conformance.config.ts', '--reporter=default', '--reporter=json', `--outputFile=${out}`, ...files], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  try {
    const r = JSON.parse(readFileSync(out, 'utf8')) as { numPassedTests: number; numTotalTests: number; numPendingTests: number };
    return { passed: r.numPassedTests, total: r.numTotalTests - r.numPendingTests };
  } catch {
    return { passed: 0, total: 0 };
  } finally {
    rmSync(join(out, '..'), { recursive: true, force: true });
  }
}

function table(results: Result[]): string {
  const rows = results.map((r) => `| ${r.agent} | ${r.version} | ${r.passed}/${r.total} | ${r.changes} |`);
  return ['| agent | version | cases right | format changes since the last judged version |', '|---|---|---|---|', ...rows].join('\n');
}

const args = mri(process.argv.slice(2), { boolean: ['latest', 'write'], string: ['agent'] });
const only = ([] as string[]).concat(args.agent ?? []);
const agents = AGENTS.filter((a) => !only.length || only.includes(a.id));
const judged = new Map((await readAllJudged()).map((a) => [a.id, a]));

// The tier runs the built CLI: build it from this checkout first.
if (spawnSync('npm', ['run', 'build:cli', '--silent'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) process.exit(1);

const results: Result[] = [];
if (!args.latest) {
  for (const a of agents) {
    const r = runFiles(a.files, {});
    results.push({ agent: judged.get(a.id)?.name ?? a.id, version: `${a.pinned} (pinned)`, ...r, changes: '—' });
  }
} else {
  for (const a of agents) {
    const j = judged.get(a.id)!;
    const version = npmLatest(j.judged.cli);
    const recordings = mkdtempSync(join(tmpdir(), 'rewind-conformance-recordings-'));
    try {
      // REWIND_JUDGING: the Rewind under test writes the release it judges, judged or not yet.
      const r = runFiles(a.files, { [a.env]: version, REWIND_JUDGING: '1', REWIND_CONFORMANCE_RECORDINGS: recordings });
      const recorded = join(recordings, a.id);
      const changes = existsSync(recorded) ? describeChanges(formatChanges(shapeOfDir(a.fixture, 'home-files'), shapeOfDir(recorded, existsSync(join(a.fixture, 'home-files.txt')) ? 'walk' : 'home-files'))) : 'no recording kept';
      results.push({ agent: j.name, version, ...r, changes });
      if (args.write && r.total > 0 && r.passed === r.total && !j.judged.judged.some((v) => v.version === version)) {
        const next: JudgedVersions = { ...j.judged, judged: [...j.judged.judged, { version, date: new Date().toISOString().slice(0, 10), cases: `${r.passed}/${r.total}` }].sort((x, y) => compareVersions(x.version, y.version)) };
        writeFileSync(join(AGENTS_DIR, a.id, 'judged.json'), `${JSON.stringify(next, null, 2)}\n`);
        j.judged = next;
      }
    } finally {
      rmSync(recordings, { recursive: true, force: true });
    }
  }
}
if (args.write) {
  const docPath = join(ROOT, 'docs', 'agents.md');
  const doc = withTable(readFileSync(docPath, 'utf8'), judgedTable([...judged.values()]));
  if (doc) writeFileSync(docPath, doc);
}

console.log(`\n${table(results)}\n`);
const wrong = results.filter((r) => r.total === 0 || r.passed < r.total);
console.log(wrong.length ? `${wrong.map((r) => `${r.agent} ${r.version}`).join(', ')}: not every case right` : 'every case right');
process.exit(wrong.length ? 1 : 0);
