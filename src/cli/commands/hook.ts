import { handleHook, logHookError, type HookPayload } from '../../engine/hooks/handle-hook.js';
import type { CliIO } from '../io.js';

const MAX_INPUT = 16 * 1024 * 1024;

/** `rewind-app hook`: called by Claude Code with one JSON object on stdin. Always exits 0, prints nothing. */
export async function hookCommand(io: CliIO): Promise<number> {
  let payload: HookPayload | null = null;
  try {
    const raw = (await io.stdin?.()) ?? '';
    if (raw.length > MAX_INPUT) throw new Error('hook input too large');
    payload = JSON.parse(raw) as HookPayload;
    if (!payload || typeof payload !== 'object') throw new Error('hook input is not a JSON object');
    const what = await handleHook(payload, io.env);
    if (io.env.REWIND_HOOK_DEBUG) io.err(`rewind hook: ${what}`);
  } catch (e) {
    await logHookError(io.env.CLAUDE_PROJECT_DIR || payload?.cwd, `${payload?.hook_event_name ?? 'hook'} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return 0;
}
