import { describe, expect, it } from 'vitest';
import { NO_BROWSER, findBrowser, type BrowserLookup } from './find-browser.js';

/** A machine with exactly these files. */
function machine(platform: NodeJS.Platform, files: string[], env: Record<string, string> = {}, playwright: string | null = null): BrowserLookup {
  const set = new Set(files);
  return { platform, env, exists: (p) => set.has(p), playwrightChromium: () => playwright };
}

const WIN_ENV = { ProgramFiles: 'C:\\Program Files', 'ProgramFiles(x86)': 'C:\\Program Files (x86)', LOCALAPPDATA: 'C:\\Users\\dev\\AppData\\Local' };
const PW_LINUX = '/home/dev/.cache/ms-playwright/chromium-1248/chrome-linux64/chrome';

describe('the e2e browser lookup', () => {
  it('REWIND_CHROMIUM wins when set, over Playwright and the system', () => {
    const m = machine('linux', ['/opt/my/chrome', PW_LINUX, '/usr/bin/chromium'], { REWIND_CHROMIUM: '/opt/my/chrome' }, PW_LINUX);
    expect(findBrowser(m)).toEqual({ path: '/opt/my/chrome', source: 'REWIND_CHROMIUM' });
  });

  it('REWIND_CHROMIUM set to a missing file is an error, not a silent fallback', () => {
    const r = findBrowser(machine('linux', ['/usr/bin/chromium'], { REWIND_CHROMIUM: '/nope/chrome' }));
    expect(r).toEqual({ error: 'REWIND_CHROMIUM is set to /nope/chrome, which does not exist.' });
  });

  it("Playwright's own Chromium when installed, before a system browser", () => {
    expect(findBrowser(machine('linux', [PW_LINUX, '/usr/bin/chromium'], {}, PW_LINUX))).toEqual({ path: PW_LINUX, source: 'playwright' });
    // Playwright names its path even when nothing is installed there: then the system's.
    expect(findBrowser(machine('linux', ['/usr/bin/chromium'], {}, PW_LINUX))).toEqual({ path: '/usr/bin/chromium', source: 'system' });
  });

  it.each([
    ['linux', '/usr/bin/chromium'],
    ['linux', '/usr/bin/chromium-browser'],
    ['linux', '/usr/bin/google-chrome'],
    ['linux', '/usr/bin/google-chrome-stable'],
    ['linux', '/usr/bin/microsoft-edge'],
    ['darwin', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'],
    ['darwin', '/Applications/Chromium.app/Contents/MacOS/Chromium'],
    ['darwin', '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge'],
    ['win32', 'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe'],
    ['win32', 'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe'],
    ['win32', 'C:\\Users\\dev\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe'],
    ['win32', 'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe'],
    ['win32', 'C:\\Program Files\\Microsoft\\Edge\\Application\\msedge.exe'],
  ] as const)('%s: a system browser at %s', (platform, path) => {
    expect(findBrowser(machine(platform, [path], platform === 'win32' ? WIN_ENV : {}))).toEqual({ path, source: 'system' });
  });

  it("a platform's paths are not looked for on another", () => {
    expect(findBrowser(machine('darwin', ['/usr/bin/chromium']))).toEqual({ error: NO_BROWSER });
    expect(findBrowser(machine('linux', ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome']))).toEqual({ error: NO_BROWSER });
    expect(findBrowser(machine('win32', ['/usr/bin/chromium'], WIN_ENV))).toEqual({ error: NO_BROWSER });
  });

  it('the first of the usual places wins when several are there (Edge last)', () => {
    const chrome = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
    const edge = '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge';
    expect(findBrowser(machine('darwin', [edge, chrome]))).toMatchObject({ path: chrome });
    expect(findBrowser(machine('linux', ['/usr/bin/microsoft-edge', '/usr/bin/chromium']))).toMatchObject({ path: '/usr/bin/chromium' });
  });

  it('with none: one line that says how to get one', () => {
    const r = findBrowser(machine('linux', []));
    expect(r).toEqual({ error: NO_BROWSER });
    expect(NO_BROWSER.split('\n')).toHaveLength(1);
    expect(NO_BROWSER).toMatch(/npx playwright install chromium/);
    expect(NO_BROWSER).toMatch(/REWIND_CHROMIUM/);
  });
});
