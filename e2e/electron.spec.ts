import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { _electron, expect, test, type Page } from '@playwright/test';
import { electronRuntime } from '../src/cli/electron-runtime.js';
import { materializeDemo } from '../src/engine/demo.js';
import { trackTempDir } from '../test/temp.js';
import { CLI, isolatedEnv, openApp, removeTempDirs, ROOT, serve, tempDir, transcriptOf } from './server.js';

// The desktop app itself: the real Electron main, preload and window, driven by Playwright's
// `_electron` where a runtime can be had; the same steps in browser mode everywhere.
test.afterAll(removeTempDirs);

/** The Electron binary to run: REWIND_ELECTRON, else the electron package's runtime if it was fetched. */
function electronToRun(): { path: string } | { reason: string } {
  const given = process.env.REWIND_ELECTRON;
  if (given) return existsSync(given) ? { path: given } : { reason: `REWIND_ELECTRON=${given} does not exist` };
  const rt = electronRuntime();
  if (rt.kind === 'ready') return { path: rt.path };
  if (rt.kind === 'absent') return { reason: rt.reason };
  return { reason: `the electron package's ${rt.version} runtime was never downloaded (npm ci skips its download script: package.json allowScripts) and REWIND_ELECTRON is unset` };
}

/** A display for the window: the session's, else an Xvfb of the test's own (Linux), else why not. */
async function display(): Promise<{ env: NodeJS.ProcessEnv; stop(): void } | { reason: string }> {
  if (process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY) return { env: {}, stop: () => {} };
  const xvfb = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const number = await new Promise<string | null>((resolve) => {
    let out = '';
    xvfb.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    xvfb.once('error', () => resolve(null));
    xvfb.once('exit', () => resolve(null));
    setTimeout(() => resolve(null), 15_000);
  });
  if (number === null) {
    xvfb.kill();
    return { reason: 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset) and no Xvfb to make one' };
  }
  return { env: { DISPLAY: `:${number}` }, stop: () => xvfb.kill() };
}

/**
 * What a user does first: the demo listed, a fork made from the window, then `rewind-app back 1`
 * typed in a terminal, which the CLI hands to the running app (its socket): the app performs it
 * and the window shows it (the result bar names it, the new fork is listed).
 */
async function forkThenBackFromTerminal(page: Page, env: NodeJS.ProcessEnv, claudeRoot: string, cwd: string): Promise<void> {
  await expect(page.locator('.app[data-ready="true"]')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.session')).toHaveCount(3);
  await page.locator('.session[data-project$="linear"]').click();
  await page.locator('.prompt-row').filter({ hasText: 'EDIT notes.md alpha gamma' }).click();
  await page.getByRole('button', { name: 'Fork here' }).click();
  await page.getByRole('dialog').getByRole('button', { name: /Fork before this prompt/ }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Fork created');
  await expect(page.locator('.session')).toHaveCount(4);

  const transcript = await transcriptOf(claudeRoot, '2ea8980a');
  const { REWIND_NO_FORWARD: _ignored, ...terminal } = env;
  const r = await promisify(execFile)(process.execPath, [CLI, 'back', '1', '--transcript', transcript], { env: terminal, cwd, encoding: 'utf8' });
  expect(r.stdout).toMatch(/^Fork created: [0-9a-f-]{36}$/m);
  // Performed by the app, not by the CLI on its own: only a forwarded command reaches the result bar.
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('From the terminal: rewind-app back — Fork created:');
  await expect(page.locator('.session')).toHaveCount(5);
}

test('the desktop window (Electron): opens on the demo, forks from the window, shows `rewind-app back 1` typed in a terminal', async () => {
  const rt = electronToRun();
  if ('reason' in rt) {
    console.log(`electron.spec: the Electron window is not run here: ${rt.reason}`);
    test.skip(true, rt.reason);
    return;
  }
  const screen = await display();
  if ('reason' in screen) {
    console.log(`electron.spec: the Electron window is not run here: ${screen.reason}`);
    test.skip(true, screen.reason);
    return;
  }
  const home = await tempDir('rewind-e2e-electron-');
  const demo = await materializeDemo(join(ROOT, 'resources'));
  trackTempDir(demo.base);
  const env = isolatedEnv(home, { claudeRoot: demo.claudeRoot, env: screen.env });
  // As root (CI) Chromium's sandbox will not start: the window's own sandbox (webPreferences) stays on.
  const args = process.getuid?.() === 0 ? ['--no-sandbox', ROOT] : [ROOT];
  const app = await _electron.launch({ executablePath: rt.path, args, env: env as Record<string, string>, timeout: 60_000 });
  try {
    const page = await app.firstWindow();
    await forkThenBackFromTerminal(page, env, demo.claudeRoot, demo.projectsDir);
    // The window is the app's one window, and it has the preload's API (not the browser mode's HTTP client).
    expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
    expect(await page.evaluate(() => typeof (window as { rewind?: unknown }).rewind)).toBe('object');
  } finally {
    await app.close();
    screen.stop();
  }
});

test('browser mode: the same steps; `rewind-app back 1` from a terminal is forwarded to the running app and shown in it', async ({ page }) => {
  const s = await serve();
  try {
    await openApp(page, s);
    await forkThenBackFromTerminal(page, s.env, s.claudeRoot, s.projectsDir);
  } finally {
    await s.stop();
  }
});
