import { spawnSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from './lib.js';

/**
 * `rewind-app hook --agent X` runs on every prompt and every tool call of the agent: its start-up
 * is the agent's wait. Median wall time of the hook (a tool call naming a file, a shell call, a
 * prompt) next to `node -e ''` measured in the same run; target: under 100 ms more than node.
 * Run: `npm run build:cli && npx tsx bench/hook.ts [runs]`.
 */
const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
const RUNS = Number(process.argv[2] ?? 15);

function once(args: string[], input: string, env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { input, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0 || r.stdout.length) throw new Error(`${args.join(' ')}: exit ${r.status}, stdout ${r.stdout}`);
  return ms;
}
/** The hook and `node -e ''` run in turns, so both see the same load (the machine is shared). */
function time(args: string[], input: string, env: NodeJS.ProcessEnv): { hook: number; node: number } {
  const hook: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    node.push(once(['-e', ''], '', env));
    hook.push(once(args, input, env));
  }
  return { hook: median(hook), node: median(node) };
}

const base = await mkdtemp(join(tmpdir(), 'rewind-hook-bench-'));
try {
  const project = join(base, 'proj');
  // A small real project: 500 files in 20 folders.
  for (let d = 0; d < 20; d++) {
    await mkdir(join(project, `src${d}`), { recursive: true });
    for (let f = 0; f < 25; f++) await writeFile(join(project, `src${d}`, `f${f}.ts`), `export const v${f} = ${'x'.repeat(200)};\n`);
  }
  const transcript = join(base, 'session.jsonl');
  await writeFile(transcript, '');
  const env = { PATH: process.env.PATH, HOME: base };
  const payload = (o: object) => JSON.stringify({ session_id: 'bench', transcript_path: transcript, cwd: project, ...o });
  const rows: [string, string, string][] = [
    ['claude', 'tool (Write, one file)', payload({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'src3/f3.ts') } })],
    ['codex', 'tool (apply_patch, one file)', payload({ hook_event_name: 'PreToolUse', turn_id: 't1', tool_name: 'apply_patch', tool_input: { command: '*** Begin Patch\n*** Update File: src1/f1.ts\n' } })],
    ['qwen', 'tool (write_file)', payload({ hook_event_name: 'PreToolUse', tool_name: 'write_file', tool_input: { file_path: join(project, 'src2/f2.ts') } })],
    ['gemini', 'tool (run_shell_command)', payload({ hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'ls' } })],
    ['droid', 'tool (Read, read-only)', payload({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: 'x' } })],
    ['codex', 'prompt (touched checkpoint)', payload({ hook_event_name: 'UserPromptSubmit', turn_id: 't2', prompt: 'p' })],
  ];
  // A first prompt makes the full checkpoint later ones are deltas of.
  spawnSync(process.execPath, [CLI, 'hook', '--agent', 'codex'], { input: payload({ hook_event_name: 'UserPromptSubmit', turn_id: 't0', prompt: 'p' }), env });
  let worst = 0;
  for (const [agent, what, input] of rows) {
    await appendFile(transcript, `${JSON.stringify({ type: 'filler' })}\n`);
    const { hook, node } = time([CLI, 'hook', '--agent', agent], input, env);
    worst = Math.max(worst, hook - node);
    console.log(`hook --agent ${agent.padEnd(6)} ${what.padEnd(30)} ${hook.toFixed(1)} ms, node -e '' ${node.toFixed(1)} ms: +${(hook - node).toFixed(1)} ms (medians of ${RUNS})`);
  }
  console.log(`worst overhead over node: ${worst.toFixed(1)} ms (target < 100 ms)`);
} finally {
  await rm(base, { recursive: true, force: true });
}
