import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Where the running app listens for forwarded CLI commands (user-only). No node:net here: the
 * CLI checks this path on every write command and must stay quick to start. */
export function socketPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REWIND_SOCKET) return env.REWIND_SOCKET;
  if (process.platform === 'win32') return `\\\\.\\pipe\\rewind-${userInfo().username}`;
  if (process.platform === 'darwin') return join(env.HOME || homedir(), 'Library', 'Application Support', 'Rewind', 'rewind.sock');
  const base = env.XDG_RUNTIME_DIR || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'rewind', 'rewind.sock');
}
