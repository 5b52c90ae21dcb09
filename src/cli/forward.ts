import { forward, socketPath } from '../main/doors/socket-door.js';
import type { CliIO } from './io.js';

/** What of the caller's environment the app needs to resolve the same transcript and project. */
function forwardedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && (k.startsWith('REWIND_') || k === 'CLAUDE_CONFIG_DIR' || k === 'CLAUDE_PROJECT_DIR' || k === 'HOME' || k === 'XDG_CACHE_HOME')) out[k] = v;
  }
  return out;
}

/** Hands the command to the running app and prints its answer; null when no app is running. */
export async function forwardToApp(argv: string[], io: CliIO): Promise<number | null> {
  const path = socketPath(io.env);
  const res = await forward(path, { argv, cwd: io.cwd, env: forwardedEnv(io.env) });
  if (!res) return null;
  if (res.stdout) io.out(res.stdout.replace(/\n$/, ''));
  if (res.stderr) io.err(res.stderr.replace(/\n$/, ''));
  return res.code;
}
