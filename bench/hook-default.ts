import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext, median, ROOT, timeCmd } from './lib.js';

/**
 * `rewind-app hook` with no `--agent` (Claude Code's default): what the agent waits for on every tool
 * call and every prompt. Every agent's hook (`hook --agent X`) is `hook.ts` (`hook-agents`).
 */
export async function benchHook({ dir }: BenchContext) {
  // What the agent waits for on every tool call (PreToolUse) and every prompt (UserPromptSubmit,
  // which checkpoints: here a touched-set one, as after an Edit), next to a bare node start.
  const project = join(dir, 'hook-project');
  await rm(project, { recursive: true, force: true });
  await mkdir(join(project, 'src'), { recursive: true });
  for (let i = 0; i < 200; i++) await writeFile(join(project, 'src', `f${i}.ts`), `export const v${i} = ${i};\n`);
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  const hook = (payload: object) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cli, 'hook'], { input: JSON.stringify({ cwd: project, session_id: 'bench', ...payload }), stdio: ['pipe', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`hook failed: ${r.stderr}`);
    return performance.now() - t0;
  };
  hook({ hook_event_name: 'UserPromptSubmit' });
  const nodeRuns: number[] = [];
  const pre: number[] = [];
  const prompt: number[] = [];
  for (let i = 0; i < 15; i++) {
    nodeRuns.push(timeCmd(process.execPath, ['-e', ''], 1));
    pre.push(hook({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(project, 'src', `f${i}.ts`) } }));
    prompt.push(hook({ hook_event_name: 'UserPromptSubmit' }));
  }
  const r = { nodeEmptyMs: +median(nodeRuns).toFixed(1), preToolUseMs: +median(pre).toFixed(1), userPromptSubmitMs: +median(prompt).toFixed(1) };
  console.log(`hook: PreToolUse ${r.preToolUseMs} ms, UserPromptSubmit (checkpoint) ${r.userPromptSubmitMs} ms, vs node -e '' ${r.nodeEmptyMs} ms (medians of 15, interleaved)`);
  return r;
}
