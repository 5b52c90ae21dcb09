import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIO } from '../io.js';

/** Finds the Electron runtime; null (with the reason) when it is not installed. */
export function findElectron(): { path: string } | { reason: string } {
  try {
    const require = createRequire(import.meta.url);
    const path = require('electron') as unknown;
    if (typeof path === 'string' && existsSync(path)) return { path };
    return { reason: 'the Electron runtime is not installed (its download was skipped or failed)' };
  } catch (e) {
    return { reason: `Electron is not available: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}` };
  }
}

/** The package folder (what Electron is given to run): the nearest ancestor holding our package.json. */
export function appRootFrom(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const pkg = join(d, 'package.json');
    if (existsSync(pkg) && /"name":\s*"rewind-app"/.test(readFileSync(pkg, 'utf8'))) return d;
    if (dirname(d) === d) return null;
  }
}

/** Opens the desktop window (the app itself takes the single-instance lock), else browser mode. */
export async function openApp(io: CliIO, opts: { claudeDir?: string; demo?: boolean } = {}): Promise<number> {
  const electron = findElectron();
  const appDir = appRootFrom(dirname(fileURLToPath(import.meta.url)));
  const display = process.platform !== 'linux' || io.env.DISPLAY || io.env.WAYLAND_DISPLAY;
  if ('path' in electron && display && appDir) {
    const env = { ...io.env, ...(opts.claudeDir ? { CLAUDE_CONFIG_DIR: opts.claudeDir } : {}), ...(opts.demo ? { REWIND_DEMO: '1' } : {}) };
    const child = spawn(electron.path, [appDir], { stdio: 'inherit', env });
    return await new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 0)));
  }
  const why = 'reason' in electron ? electron.reason : !appDir ? 'the app files are not next to this CLI' : 'no display (DISPLAY/WAYLAND_DISPLAY unset)';
  io.err(`Cannot open the desktop window: ${why}. Opening Rewind in browser mode instead.`);
  const { serveCommand } = await import('./serve.js');
  return serveCommand({ claudeDir: opts.claudeDir, demo: opts.demo }, io);
}
