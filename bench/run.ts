import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateTranscript } from './generate-transcript.js';

const ROOT = resolve(import.meta.dirname, '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const results: Record<string, unknown> = { date: new Date().toISOString(), node: process.version };
const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);
const mb = (b: number) => b / (1024 * 1024);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timeCmd(cmd: string, args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  }
  return median(times);
}

const dir = join(tmpdir(), 'rewind-bench');
await mkdir(dir, { recursive: true });

if (want('parse')) {
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
  results.parse = r;
  console.log(`parse: ${r.fileMiB} MiB  bare JSON.parse loop ${r.bareMiBs} MiB/s  engine ${r.engineMiBs} MiB/s  (ratio ${r.ratio}, target >= 0.5)  peak RSS ${r.enginePeakRssMiB} MiB = ${r.memoryVsFile}x file (target < 2x)`);
}

if (want('back')) {
  const file = join(dir, 'back-1gib', 'projects', '-home-dev-project', '00000000-0000-4000-8000-00000000beef.jsonl');
  await mkdir(join(file, '..'), { recursive: true });
  const st = await stat(file).catch(() => null);
  if (!st || st.size < 1024 * 1024 * 1024) await generateTranscript(file, 1024 * 1024 * 1024);
  const size = (await stat(file)).size;
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  const nodeMs = timeCmd(process.execPath, ['-e', ''], 7);
  const backMs = timeCmd(process.execPath, [cli, 'back', '1', '--dry-run', '--transcript', file], 7);
  const project = join(dir, 'back-project');
  await mkdir(project, { recursive: true });
  const forks: number[] = [];
  const cps: number[] = [];
  const cpSyncs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const out = execFileSync(process.execPath, [cli, 'back', '1', '--transcript', file, '--project', project], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    forks.push(performance.now() - t0);
    const id = /Fork created: (\S+)/.exec(out)?.[1];
    if (id) await rm(join(file, '..', `${id}.jsonl`));
    const copy = join(dir, 'cp-copy.jsonl');
    cps.push(timeCmd('cp', [file, copy], 1));
    await rm(copy);
    cpSyncs.push(timeCmd('sh', ['-c', `cp '${file}' '${copy}' && sync '${copy}'`], 1));
    await rm(copy);
  }
  const forkMs = median(forks);
  const cpMs = median(cps);
  const r = {
    fileMiB: +mb(size).toFixed(0),
    nodeEmptyMs: +nodeMs.toFixed(1),
    backDryRunMs: +backMs.toFixed(1),
    dryRunVsNode: +(backMs / nodeMs).toFixed(2),
    forkMs: +forkMs.toFixed(0),
    cpMs: +cpMs.toFixed(0),
    cpSyncMs: +median(cpSyncs).toFixed(0),
    forkVsCp: +(forkMs / cpMs).toFixed(2),
    targets: { dryRunVsNode: '<= 1.5', forkVsCp: '<= 2' },
  };
  results.back = r;
  console.log(`back: ${r.fileMiB} MiB transcript  back 1 --dry-run ${r.backDryRunMs} ms vs node -e '' ${r.nodeEmptyMs} ms (${r.dryRunVsNode}x, target <= 1.5x)  fork ${r.forkMs} ms vs cp ${r.cpMs} ms (${r.forkVsCp}x, target <= 2x; cp+sync ${r.cpSyncMs} ms)`);
}

if (want('checkpoint')) {
  const { generateTree } = await import('./generate-tree.js');
  const { takeCheckpoint } = await import('../src/engine/store/checkpoint.js');
  const { resolveRestoreTarget, restore } = await import('../src/engine/store/restore.js');
  const { recordAgentWrite } = await import('../src/engine/store/agent-writes.js');
  const { hashFile } = await import('../src/engine/store/objects.js');
  const { appendFile, readdir } = await import('node:fs/promises');
  const tree = join(dir, 'tree-20k');
  await rm(tree, { recursive: true, force: true });
  await mkdir(tree, { recursive: true });
  await generateTree(tree, 20_000, 300 * 1024 * 1024);
  const gitDir = join(dir, 'shadow.git');
  await rm(gitDir, { recursive: true, force: true });
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  const git = (...args: string[]) => {
    const t0 = performance.now();
    const out = execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${tree}`, ...args], { cwd: tree, encoding: 'utf8', maxBuffer: 1 << 26 });
    return { ms: performance.now() - t0, out: out.trim() };
  };
  const gitSnap = () => {
    const a = git('add', '-A');
    const w = git('write-tree');
    return { ms: a.ms + w.ms, tree: w.out };
  };
  const ours = async (touched?: string[]) => {
    const t0 = performance.now();
    const r = await takeCheckpoint({ projectRoot: tree, trigger: touched ? 'prompt' : 'manual', touched: touched ?? null });
    return { ms: performance.now() - t0, r };
  };
  const gitFirst = gitSnap();
  const first = await ours();
  const gitAgain = gitSnap();
  const again = await ours();
  const pick: string[] = [];
  for (const d of ['pkg1/mod1/d1', 'pkg2/mod2/d2']) for (const f of (await readdir(join(tree, d))).slice(0, 5)) pick.push(`${d}/${f}`);
  for (const p of pick) await appendFile(join(tree, p), '// touched\n');
  const gitTouched = gitSnap();
  const touched = await ours(pick);
  // Restore: the agent changes 10 files again (reported edits), then we go back.
  for (const p of pick) {
    await appendFile(join(tree, p), '// agent edit\n');
    await recordAgentWrite(tree, { time: new Date(Date.now() + 1000).toISOString(), path: p, ref: await hashFile(join(tree, p)), tool: 'Edit' });
  }
  const target = await resolveRestoreTarget({ projectRoot: tree, ref: touched.r.manifest.id });
  const t0 = performance.now();
  const rr = await restore(tree, target, {});
  const restoreMs = performance.now() - t0;
  for (const p of pick) await appendFile(join(tree, p), '// agent edit 2\n');
  const gitRestore = git('restore', `--source=${gitTouched.tree}`, '--worktree', '--', '.');
  const r = {
    files: first.r.manifest.entries.length,
    firstMs: Math.round(first.ms),
    gitFirstMs: Math.round(gitFirst.ms),
    firstVsGit: +(first.ms / gitFirst.ms).toFixed(2),
    unchangedMs: Math.round(again.ms),
    unchangedHashed: again.r.hashed,
    gitUnchangedMs: Math.round(gitAgain.ms),
    touchedMs: Math.round(touched.ms),
    touchedHashed: touched.r.hashed,
    gitTouchedMs: Math.round(gitTouched.ms),
    restore10Ms: Math.round(restoreMs),
    restoreWritten: rr.applied?.written,
    gitRestore10Ms: Math.round(gitRestore.ms),
    targets: { firstVsGit: '<= 1.5', touchedMs: '< 50' },
  };
  results.checkpoint = r;
  console.log(
    `checkpoint (${r.files} files, 300 MiB): first ${r.firstMs} ms vs shadow git ${r.gitFirstMs} ms (${r.firstVsGit}x, target <= 1.5x); ` +
      `unchanged ${r.unchangedMs} ms (${r.unchangedHashed} read) vs git ${r.gitUnchangedMs} ms; ` +
      `touched set of 10: ${r.touchedMs} ms (target < 50 ms) vs git ${r.gitTouchedMs} ms; ` +
      `restore of 10 changed files ${r.restore10Ms} ms vs git restore ${r.gitRestore10Ms} ms`,
  );
}

await mkdir(join(ROOT, 'bench-results'), { recursive: true });
await writeFile(join(ROOT, 'bench-results', 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
