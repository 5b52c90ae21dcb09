import { spawnSync } from 'node:child_process';
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext, median, ROOT } from './lib.js';

/**
 * The hooks on a 20,000-file project (issue: every prompt checkpoints the whole tree, the user's own
 * edits included): the first prompt (its checkpoint goes to the background: the hook returns at
 * once), a prompt with nothing changed, a prompt after 100 files were changed by hand, and the tool
 * hooks (PreToolUse, PostToolUse). Each run next to `node -e ''` in turns (medians); targets:
 * +150 ms, +300 ms, +100 ms. `npm run bench -- hook-20k`.
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
  const env = { PATH: process.env.PATH, HOME: dir };
  const once = (args: string[], input: string) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { input, env, stdio: ['pipe', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
    return performance.now() - t0;
  };
  let n = 0;
  const hook = (payload: object) => once([cli, 'hook'], JSON.stringify({ cwd: project, session_id: 'bench', transcript_path: transcript, ...payload }));
  const node = () => once(['-e', ''], '');
  const prompt = () => hook({ hook_event_name: 'UserPromptSubmit', prompt_id: `p${n++}` });

  // The first prompt: the hook queues the checkpoint and returns; a detached child reads the tree.
  const nodeFirst = node();
  const first = prompt();
  const t0 = performance.now();
  while (await stat(join(project, '.agent', 'rewind', 'background.json')).catch(() => null)) await new Promise((r) => setTimeout(r, 50));
  const background = performance.now() - t0 + first;
  // Two settling prompts (the first cache entries are racy: read once more), as a user's second prompt.
  prompt();
  prompt();

  const rows: Record<string, { hook: number; node: number; over: number }> = {};
  const measure = (name: string, before: (i: number) => Promise<void> | void, run: () => number) => async () => {
    const h: number[] = [];
    const nd: number[] = [];
    for (let i = 0; i < runs; i++) {
      await before(i);
      nd.push(node());
      h.push(run());
    }
    rows[name] = { hook: median(h), node: median(nd), over: median(h) - median(nd) };
  };
  await measure('prompt, nothing changed', () => undefined, prompt)();
  let edit = 0;
  await measure(
    'prompt, 100 files changed by hand',
    async () => {
      edit++;
      for (let k = 0; k < 100; k++) await writeFile(join(project, files[(edit * 100 + k) % files.length]!), `// hand edit ${edit}\n`);
    },
    prompt,
  )();
  const target = join(project, files[0]!);
  await measure('tool (PreToolUse Write)', () => undefined, () => hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: target } }))();
  await measure('tool (PostToolUse Write)', () => undefined, () => hook({ hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: target } }))();
  console.log(`hook on 20,000 files: first prompt ${first.toFixed(0)} ms (node -e '' ${nodeFirst.toFixed(0)} ms), its checkpoint done in the background after ${background.toFixed(0)} ms`);
  for (const [name, r] of Object.entries(rows)) console.log(`hook on 20,000 files: ${name.padEnd(34)} ${r.hook.toFixed(0)} ms, node -e '' ${r.node.toFixed(0)} ms: +${r.over.toFixed(0)} ms (medians of ${runs})`);
  await rm(project, { recursive: true, force: true });
  return { firstPromptMs: first, nodeMs: nodeFirst, backgroundMs: background, rows };
}
