import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchContext } from './lib.js';

/**
 * Checkpoints of a generated tree of 20k files / 300 MiB (first, unchanged, a touched set of 10) and a
 * restore of 10 changed files, each next to a shadow git doing the same.
 */
export async function benchCheckpoint({ dir }: BenchContext) {
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
  console.log(
    `checkpoint (${r.files} files, 300 MiB): first ${r.firstMs} ms vs shadow git ${r.gitFirstMs} ms (${r.firstVsGit}x, target <= 1.5x); ` +
      `unchanged ${r.unchangedMs} ms (${r.unchangedHashed} read) vs git ${r.gitUnchangedMs} ms; ` +
      `touched set of 10: ${r.touchedMs} ms (target < 50 ms) vs git ${r.gitTouchedMs} ms; ` +
      `restore of 10 changed files ${r.restore10Ms} ms vs git restore ${r.gitRestore10Ms} ms`,
  );
  return r;
}
