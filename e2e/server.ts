import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { materializeDemo } from '../src/engine/demo.js';
import { tempDir, trackTempDir } from '../test/temp.js';

// A spec that makes temp dirs removes them: `test.afterAll(removeTempDirs)` (serve removes its own on stop).
export { removeTempDirs, tempDir } from '../test/temp.js';

export const ROOT = resolve(import.meta.dirname, '..');
export const CLI = join(ROOT, 'out', 'cli', 'rewind-app.mjs');

/** Variables that point the app at the user's data. */
const USER_DATA = ['FACTORY_HOME_OVERRIDE', 'QWEN_HOME', 'QWEN_RUNTIME_DIR', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'CLAUDE_PROJECT_DIR', 'REWIND_CONFIG_DIR', 'REWIND_PRICES', 'REWIND_TRANSCRIPT_PATH', 'REWIND_DEMO'];

/**
 * The app's environment in a home of its own: nothing of the user's (their agents' data, prefs and
 * prices are all in `home`, or given), its own socket for the commands a terminal forwards.
 */
export function isolatedEnv(home: string, opts: { claudeRoot: string; codexHome?: string; env?: NodeJS.ProcessEnv }): NodeJS.ProcessEnv {
  const own = Object.fromEntries(Object.entries(process.env).filter(([k]) => !USER_DATA.includes(k)));
  return { ...own, HOME: home, USERPROFILE: home, APPDATA: join(home, 'AppData', 'Roaming'), XDG_CONFIG_HOME: join(home, '.config'), CLAUDE_CONFIG_DIR: opts.claudeRoot, CODEX_HOME: opts.codexHome ?? join(home, '.codex'), REWIND_SOCKET: join(home, 'rewind.sock'), REWIND_CACHE_DIR: join(home, 'cache'), ...opts.env };
}

export interface Served {
  url: string;
  claudeRoot: string;
  projectsDir: string;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/**
 * `rewind-app serve` on a fresh copy of the fixture sessions (their projects are real folders), on
 * nothing (`empty`), or on a given Claude config dir (sessions recorded by the real CLI).
 */
export async function serve(opts: { empty?: boolean; claudeRoot?: string; codexHome?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Served> {
  const home = await tempDir('rewind-e2e-home-');
  const scratch = [home];
  let claudeRoot = opts.claudeRoot ?? join(home, '.claude');
  let projectsDir = join(home, 'projects');
  if (!opts.empty && !opts.claudeRoot) {
    const demo = await materializeDemo(join(ROOT, 'resources'));
    scratch.push(trackTempDir(demo.base));
    ({ claudeRoot, projectsDir } = demo);
  }
  const env = isolatedEnv(home, { claudeRoot, codexHome: opts.codexHome, env: opts.env });
  const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let stopped = false;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = await new Promise<string>((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}${err}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /running at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise(m[1]!);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return {
    url,
    claudeRoot,
    projectsDir,
    env,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      try {
        // A server that died during the test is a failure of its own, with its stderr to show why.
        if (child.exitCode !== null) throw new Error(`serve had already exited (${child.exitCode}): ${err}`);
        child.kill('SIGTERM');
        const code = await exited;
        if (code !== 0) throw new Error(`serve exited ${code} on SIGTERM: ${err}`);
      } finally {
        for (const d of scratch) await rm(d, { recursive: true, force: true, maxRetries: 5 });
      }
    },
  };
}

export async function transcriptOf(claudeRoot: string, sessionPrefix: string): Promise<string> {
  for (const d of await readdir(join(claudeRoot, 'projects'))) {
    for (const f of await readdir(join(claudeRoot, 'projects', d))) if (f.startsWith(sessionPrefix) && f.endsWith('.jsonl')) return join(claudeRoot, 'projects', d, f);
  }
  throw new Error(`no transcript ${sessionPrefix}`);
}

/** Opens the window of a served app (in a colour scheme or with reduced motion when asked) and waits until it is ready. */
export async function openApp(page: Page, s: Pick<Served, 'url'>, media?: Parameters<Page['emulateMedia']>[0]): Promise<void> {
  if (media) await page.emulateMedia(media);
  await page.goto(s.url);
  await expect(page.locator('.app[data-ready="true"]')).toBeVisible();
}
