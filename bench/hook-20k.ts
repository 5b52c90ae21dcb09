import { spawnSync } from 'node:child_process';
import { mkdir, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext, median, ROOT } from './lib.js';

/**
 * The hooks on a 20,000-file project (issue: every prompt checkpoints the whole tree, the user's own
 * edits included): the first prompt (its checkpoint goes to the background: the hook returns at
 * once), a prompt with nothing changed, a prompt after 100 files were changed by hand, and the tool
 * hooks (PreToolUse, PostToolUse). Each run next to `node -e ''` in turns (medians); targets:
 * +150 ms, +300 ms, +100 ms. `npm run bench -- hook-20k`.
 *
 * A prompt's checkpoint is taken by a detached child and the tools' pre-hooks wait for it: the prompt
 * rows are the hook process alone (each run starts once the previous child is done); the "then
 * PreToolUse at once" rows are the prompt hook and a tool hook run right after it (a model that calls
 * a tool at once: the wait shows there); the "inline" rows are the same CLI taking the checkpoint in
 * the hook itself, as before (run through a link of another name: see `ours` in src/cli/commands/hook.ts).
 */
export async function benchHook20k({ dir }: BenchContext, runs = Number(process.env.HOOK20K_RUNS ?? 9)) {
  const { generateTree } = await import('./generate-tree.js');
  const project = join(dir, 'hook-20k');
  await rm(project, { recursive: true, force: true });
  await mkdir(project, { recursive: true });
  await generateTree(project, 20_000, 60 * 1024 * 1024);
  // Files are old between two prompts (out of the stat cache's racy window).
  const { walkTreeSync } = await import('../src/engine/store/walk-tree.js');
  const files = walkTreeSync(project).filter((w) => w.kind === 'file').map((w) => w.path);
  const old = new Date(Date.now() - 3600_000);
  for (const f of files) await utimes(join(project, f), old, old);
  const transcript = join(dir, 'hook-20k.jsonl');
  await writeFile(transcript, '{}\n');
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  // REWIND_HOOK_DEBUG: each checkpoint says where its time went (one line on stderr, read below).
  const env = { PATH: process.env.PATH, HOME: dir, REWIND_HOOK_DEBUG: '1' };
  let lastPhases: Record<string, number> | null = null;
  const once = (args: string[], input: string, cmd = process.execPath) => {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { input, env, stdio: ['pipe', 'ignore', 'pipe'], cwd: project });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
    const m = /\(ms: (\{[^}]*\})\)/.exec(String(r.stderr));
    lastPhases = m ? (JSON.parse(m[1]!) as Record<string, number>) : null;
    return ms;
  };
  let n = 0;
  const hook = (payload: object) => once([cli, 'hook'], JSON.stringify({ cwd: project, session_id: 'bench', transcript_path: transcript, ...payload }));
  const node = () => once(['-e', ''], '');
  const prompt = () => hook({ hook_event_name: 'UserPromptSubmit', prompt_id: `p${n++}` });
  const inlineCli = join(dir, 'rewind-inline.mjs');
  await rm(inlineCli, { force: true });
  await symlink(cli, inlineCli);
  const promptInline = () => once([inlineCli, 'hook'], JSON.stringify({ cwd: project, session_id: 'bench', transcript_path: transcript, hook_event_name: 'UserPromptSubmit', prompt_id: `p${n++}` }));
  const target = join(project, files[0]!);
  const preTool = () => hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: target } });
  const settled = async () => {
    while (await stat(join(project, '.agent', 'rewind', 'background.json')).catch(() => null)) await new Promise((r) => setTimeout(r, 10));
  };

  // The first prompt: the hook queues the checkpoint and returns; a detached child reads the tree.
  const nodeFirst = node();
  const first = prompt();
  const t0 = performance.now();
  while (await stat(join(project, '.agent', 'rewind', 'background.json')).catch(() => null)) await new Promise((r) => setTimeout(r, 50));
  const background = performance.now() - t0 + first;
  // Two settling prompts (the first cache entries are racy: read once more), as a user's second prompt.
  promptInline();
  promptInline();

  const rows: Record<string, { hook: number; node: number; over: number; phases?: Record<string, number> }> = {};
  const measure = (name: string, before: (i: number) => Promise<void> | void, run: () => number) => async () => {
    const h: number[] = [];
    const nd: number[] = [];
    const phases: Record<string, number[]> = {};
    for (let i = 0; i < runs; i++) {
      await before(i);
      nd.push(node());
      h.push(run());
      for (const [k, v] of Object.entries(lastPhases ?? {})) (phases[k] ??= []).push(v);
    }
    const ph = Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, median(v)]));
    rows[name] = { hook: median(h), node: median(nd), over: median(h) - median(nd), ...(Object.keys(ph).length ? { phases: ph } : {}) };
  };
  let edit = 0;
  const handEdit = async () => {
    await settled();
    edit++;
    for (let k = 0; k < 100; k++) await writeFile(join(project, files[(edit * 100 + k) % files.length]!), `// hand edit ${edit}\n`);
  };
  // Each kind of run in turns with the others, so the machine's load falls on all alike.
  const kinds: [string, () => Promise<void> | void, () => number][] = [
    ['prompt, nothing changed', settled, prompt],
    ['prompt, nothing changed, then PreToolUse at once', settled, () => prompt() + preTool()],
    ['prompt inline (as before), nothing changed', settled, promptInline],
    ['prompt, 100 files changed by hand', handEdit, prompt],
    ['prompt, 100 changed, then PreToolUse at once', handEdit, () => prompt() + preTool()],
    ['prompt inline (as before), 100 changed', handEdit, promptInline],
  ];
  const samples = new Map<string, { h: number[]; nd: number[]; phases: Record<string, number[]> }>();
  for (let i = 0; i < runs; i++) {
    for (const [name, before, run] of kinds) {
      const x = samples.get(name) ?? { h: [], nd: [], phases: {} };
      samples.set(name, x);
      await before();
      x.nd.push(node());
      lastPhases = null;
      x.h.push(run());
      for (const [k, v] of Object.entries(lastPhases ?? {})) (x.phases[k] ??= []).push(v);
    }
  }
  for (const [name, x] of samples) {
    const ph = Object.fromEntries(Object.entries(x.phases).map(([k, v]) => [k, median(v)]));
    rows[name] = { hook: median(x.h), node: median(x.nd), over: median(x.h) - median(x.nd), ...(Object.keys(ph).length ? { phases: ph } : {}) };
  }
  await settled();
  await measure('tool (PreToolUse Write)', () => undefined, preTool)();
  await measure('tool (PostToolUse Write)', () => undefined, () => hook({ hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: target } }))();
  // The reference the issue names: `git status` on the same tree (committed once, nothing changed).
  const git = (args: string[]) => spawnSync('git', args, { cwd: project, stdio: 'ignore', env: { ...env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } }).status === 0;
  if (git(['init', '-q']) && git(['add', '-A']) && git(['commit', '-qm', 'bench']) && git(['status', '--porcelain'])) {
    await measure('reference: git status --porcelain', () => undefined, () => once(['status', '--porcelain'], '', 'git'))();
  }
  console.log(`hook on 20,000 files: first prompt ${first.toFixed(0)} ms (node -e '' ${nodeFirst.toFixed(0)} ms), its checkpoint done in the background after ${background.toFixed(0)} ms`);
  for (const [name, r] of Object.entries(rows)) {
    const ph = r.phases ? `; checkpoint phases (ms, medians): ${Object.entries(r.phases).map(([k, v]) => `${k} ${v}`).join(', ')}` : '';
    console.log(`hook on 20,000 files: ${name.padEnd(34)} ${r.hook.toFixed(0)} ms, node -e '' ${r.node.toFixed(0)} ms: +${r.over.toFixed(0)} ms (medians of ${runs})${ph}`);
  }
  await settled();
  await rm(project, { recursive: true, force: true });
  await rm(inlineCli, { force: true });
  return { firstPromptMs: first, nodeMs: nodeFirst, backgroundMs: background, rows };
}
