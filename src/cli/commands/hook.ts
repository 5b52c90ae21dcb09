import { handleAgentHook, logHookError, type HookPayload } from '../../engine/hooks/handle-hook.js';
import type { CliIO } from '../io.js';

const MAX_INPUT = 16 * 1024 * 1024;

/**
 * `rewind-app hook [--agent <id>]`: run by an agent's hooks with one JSON object on stdin (no
 * `--agent`: Claude Code, as installed before the flag existed). Always exits 0 and prints
 * nothing: whatever goes wrong is written to the project's `.agent/rewind/hook.log`.
 */
export async function hookCommand(io: CliIO, agent?: string): Promise<number> {
  let payload: HookPayload | null = null;
  try {
    const raw = (await io.stdin?.()) ?? '';
    if (raw.length > MAX_INPUT) throw new Error('hook input too large');
    payload = JSON.parse(raw) as HookPayload;
    if (!payload || typeof payload !== 'object') throw new Error('hook input is not a JSON object');
    const what = await handleAgentHook(agent, payload, io.env);
    if (io.env.REWIND_HOOK_DEBUG) io.err(`rewind hook: ${what}`);
  } catch (e) {
    const root = io.env.REWIND_PROJECT_ROOT || io.env.CLAUDE_PROJECT_DIR || (typeof payload?.cwd === 'string' ? payload.cwd : undefined);
    await logHookError(root, `${agent ?? 'hook'} ${payload?.hook_event_name ?? 'hook'} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return 0;
}
