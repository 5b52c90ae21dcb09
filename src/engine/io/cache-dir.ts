import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where Rewind keeps what it can always rebuild (indexes, counts): `REWIND_CACHE_DIR`, else the
 * platform's cache folder: `$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS,
 * `%LOCALAPPDATA%` on Windows.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.REWIND_CACHE_DIR) return env.REWIND_CACHE_DIR;
  const home = env.HOME || env.USERPROFILE || homedir();
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'rewind');
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'rewind');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'rewind', 'Cache');
  return join(home, '.cache', 'rewind');
}
