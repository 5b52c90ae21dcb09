import { posix, win32 } from 'node:path';

/** What the lookup may see of the machine: injected, so each platform's paths can be tested anywhere. */
export interface BrowserLookup {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  exists(path: string): boolean;
  /** Where Playwright's own Chromium is (or would be) installed; null when Playwright cannot say. */
  playwrightChromium(): string | null;
}

export type BrowserFound = { path: string; source: 'REWIND_CHROMIUM' | 'playwright' | 'system' } | { error: string };

export const NO_BROWSER =
  'No browser for the e2e tests: run `npx playwright install chromium`, or install Chrome, Chromium or Edge, or set REWIND_CHROMIUM to a Chromium-based browser.';

/** System Chrome, Chromium and Edge at each platform's usual places, in order of preference. */
export function systemBrowserPaths(platform: NodeJS.Platform, env: Record<string, string | undefined>): string[] {
  if (platform === 'win32') {
    const roots = [env.ProgramFiles, env['ProgramFiles(x86)'], env.LOCALAPPDATA].filter((r): r is string => !!r);
    const exes = [['Google', 'Chrome', 'Application', 'chrome.exe'], ['Chromium', 'Application', 'chrome.exe'], ['Microsoft', 'Edge', 'Application', 'msedge.exe']];
    return exes.flatMap((exe) => roots.map((r) => win32.join(r, ...exe)));
  }
  if (platform === 'darwin') {
    const apps = [['Google Chrome.app', 'Google Chrome'], ['Chromium.app', 'Chromium'], ['Microsoft Edge.app', 'Microsoft Edge']];
    const dirs = ['/Applications', ...(env.HOME ? [posix.join(env.HOME, 'Applications')] : [])];
    return apps.flatMap(([app, exe]) => dirs.map((d) => posix.join(d, app!, 'Contents', 'MacOS', exe!)));
  }
  const names = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'microsoft-edge-stable'];
  return [...names.map((n) => posix.join('/usr/bin', n)), '/snap/bin/chromium'];
}

/**
 * The browser the e2e tier drives: REWIND_CHROMIUM when set; else Playwright's own Chromium when
 * installed; else a system Chrome, Chromium or Edge; else one line saying how to get one.
 */
export function findBrowser(l: BrowserLookup): BrowserFound {
  const given = l.env.REWIND_CHROMIUM;
  if (given) return l.exists(given) ? { path: given, source: 'REWIND_CHROMIUM' } : { error: `REWIND_CHROMIUM is set to ${given}, which does not exist.` };
  const own = l.playwrightChromium();
  if (own && l.exists(own)) return { path: own, source: 'playwright' };
  const system = systemBrowserPaths(l.platform, l.env).find((p) => l.exists(p));
  return system ? { path: system, source: 'system' } : { error: NO_BROWSER };
}
