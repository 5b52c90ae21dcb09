import { existsSync } from 'node:fs';
import { chromium, defineConfig } from '@playwright/test';
import { findBrowser } from './e2e/find-browser.js';

// REWIND_CHROMIUM, else Playwright's own Chromium, else a system Chrome, Chromium or Edge.
const browser = findBrowser({
  platform: process.platform,
  env: process.env,
  exists: existsSync,
  playwrightChromium: () => {
    try {
      return chromium.executablePath();
    } catch {
      return null;
    }
  },
});
if ('error' in browser) {
  process.stderr.write(`${browser.error}\n`);
  process.exit(1);
}

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 1,
  globalSetup: './e2e/global-setup.ts',
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e.json' }]],
  outputDir: 'test-results/e2e',
  use: {
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: browser.path,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
