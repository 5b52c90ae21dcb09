import { isAbsolute } from 'node:path';
import { handleAgentHook, logHookError, type HookPayload } from '../../engine/hooks/handle-hook.js';
import type { CliIO } from '../io.js';

const MAX_INPUT = 16 * 1024 * 1024;
/** An agent writes its payload at once and closes the pipe; one that never closes it is given up on, the agent never left waiting. */
const INPUT_WAIT_MS = 10_000;

/**
 * `rewind-app hook [--agent <id>]`: run by an agent's hooks with one JSON object on stdin (no
 * `--agent`: Claude Code, as installed before the flag existed). Always exits 0 and prints
 * nothing: whatever goes wrong is written to the project's `.agent/rewind/hook.log`.
 */
export async function hookCommand(io: CliIO, agent?: string): Promise<number> {
  let payload: HookPayload | null = null;
  // The detached child a hook started for a project's first checkpoint (it reads no stdin).
  const bg = io.env.REWIND_BG_CHECKPOINT;
  if (bg) {
    try {
      const { runBackground } = await import('../../engine/hooks/hook-store.js');
      await runBackground(bg, process.pid);
    } catch (e) {
      await logHookError(bg, `background checkpoint failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    return 0;
  }
  try {
    const raw = (await io.stdin?.({ waitMs: INPUT_WAIT_MS, maxBytes: MAX_INPUT })) ?? '';
    if (raw.length > MAX_INPUT) throw new Error('hook input too large');
    payload = JSON.parse(raw) as HookPayload;
    if (!payload || typeof payload !== 'object') throw new Error('hook input is not a JSON object');
    // This CLI again, for a checkpoint that must run in the background; run any other way (in-process
    // by a test or the app) the checkpoint is taken inline.
    const script = process.argv[1];
    const ours = !!script && /rewind-app(\.[cm]?js)?$/.test(script);
    const began = performance.now();
    const what = await handleAgentHook(agent, payload, io.env, ours ? [...process.execArgv, script, 'hook'] : null);
    // With the time since the process started: node's start and the loading of the CLI, then the hook's work.
    if (io.env.REWIND_HOOK_DEBUG) io.err(`rewind hook: ${what} [started at ${began.toFixed(0)} ms, done at ${performance.now().toFixed(0)} ms]`);
  } catch (e) {
    // Only an absolute folder: a relative cwd would make a store wherever this process runs.
    const root = io.env.REWIND_PROJECT_ROOT || io.env.CLAUDE_PROJECT_DIR || (typeof payload?.cwd === 'string' && isAbsolute(payload.cwd) ? payload.cwd : undefined);
    await logHookError(root, `${agent ?? 'hook'} ${payload?.hook_event_name ?? 'hook'} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return 0;
}
