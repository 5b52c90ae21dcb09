import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronRuntime, fetchElectron } from '../electron-runtime.js';
import type { CliIO } from '../io.js';

/** The package folder (what Electron is given to run): the nearest ancestor holding our package.json. */
export function appRootFrom(dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const pkg = join(d, 'package.json');
    if (existsSync(pkg) && /"name":\s*"rewind-app"/.test(readFileSync(pkg, 'utf8'))) return d;
    if (dirname(d) === d) return null;
  }
}

/** A window that dies this soon after launch never showed: browser mode takes over. */
const EARLY_EXIT_MS = 5_000;

/**
 * Opens the desktop window (the app itself takes the single-instance lock), fetching the runtime the
 * first time it is wanted; anything in the way (no display, no runtime, a failed fetch, a window that
 * does not start) is said in one line and browser mode opens instead.
 */
export async function openApp(io: CliIO, opts: { claudeDir?: string; demo?: boolean } = {}): Promise<number> {
  const why = await launchWindow(io, opts);
  if (typeof why === 'number') return why;
  io.err(`The desktop window is not available: ${why}. Opening Rewind in browser mode instead.`);
  const { serveCommand } = await import('./serve.js');
  return serveCommand({ claudeDir: opts.claudeDir, demo: opts.demo }, io);
}

/** The window's exit code, or why it could not be opened. */
async function launchWindow(io: CliIO, opts: { claudeDir?: string; demo?: boolean }): Promise<number | string> {
  const appDir = appRootFrom(dirname(fileURLToPath(import.meta.url)));
  if (!appDir || !existsSync(join(appDir, 'out', 'main', 'index.js'))) return 'the app files are not next to this CLI';
  const rt = electronRuntime();
  if (rt.kind === 'absent') return rt.reason;
  const display = process.platform !== 'linux' || io.env.DISPLAY || io.env.WAYLAND_DISPLAY;
  if (!display) return rt.kind === 'ready' ? 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)' : 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset), so its runtime was not fetched';
  let path: string;
  if (rt.kind === 'ready') path = rt.path;
  else {
    const got = await fetchElectron(rt, (line) => io.err(line));
    if ('reason' in got) return got.reason;
    path = got.path;
  }
  const env = { ...io.env, ...(opts.claudeDir ? { CLAUDE_CONFIG_DIR: opts.claudeDir } : {}), ...(opts.demo ? { REWIND_DEMO: '1' } : {}) };
  const started = Date.now();
  const child = spawn(path, [appDir], { stdio: 'inherit', env });
  const code = await new Promise<number>((resolve) => {
    child.on('error', () => resolve(-1));
    child.on('exit', (c) => resolve(c ?? 0));
  });
  if (code !== 0 && Date.now() - started < EARLY_EXIT_MS) return code === -1 ? `the runtime at ${path} could not be started` : `the window exited at once (code ${code})`;
  return code;
}
