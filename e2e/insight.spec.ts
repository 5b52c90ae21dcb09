import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openApp, removeTempDirs, serve, tempDir, type Served } from './server.js';

test.afterAll(removeTempDirs);

let s: Served;

test.beforeEach(async () => {
  // A price for the model the bundled sessions were recorded with, so dollars show (it is in no list).
  const dir = await tempDir('rewind-prices-');
  await writeFile(join(dir, 'prices.json'), JSON.stringify({ models: { 'claude-opus-5-5': { input: 10000, output: 50000 } } }));
  s = await serve({ env: { REWIND_PRICES: join(dir, 'prices.json') } });
});
test.afterEach(async () => {
  await s.stop();
});

async function openBranched(page: Page) {
  await openApp(page, s);
  await page.locator('.session[data-project$="branched"]').click();
  await expect(page.locator('.prompt-row')).toHaveCount(6);
  // Settled first: the hooks notice (the fixture's project is a real folder) comes in above the
  // timeline after its rows, and a click made while it moved them down landed on the next row.
  await expect(page.getByRole('note', { name: 'Checkpoints' })).toBeVisible();
}

test('cost: the session total in the header, each turn in its row, the abandoned branch on hover', async ({ page }) => {
  await openBranched(page);
  const total = page.getByTestId('session-cost');
  await expect(total).toHaveText(/^\$\d+\.\d{2} · abandoned \$\d+\.\d{2}$/);
  await expect(total).toHaveAttribute('title', /Abandoned branch \(2 prompts\): \$\d+\.\d{2}/);
  await expect(page.locator('.prompt-row .row-cost').first()).toHaveText(/^\$\d+\.\d{2}$/);
});

test('compare an abandoned prompt with the live end: both sides and the code difference', async ({ page }) => {
  await openBranched(page);
  await page.locator('.prompt-row').filter({ hasText: 'BASH echo bashmade > c.txt' }).click();
  await page.getByRole('button', { name: 'Compare with…' }).click();
  const banner = page.getByRole('status', { name: 'Compare' });
  await expect(banner).toContainText('Comparing from the abandoned prompt “BASH echo bashmade > c.txt”');
  await page.locator('.prompt-row').filter({ hasText: 'WRITE e.txt after branch' }).click();
  await banner.getByRole('button', { name: /Compare with #4/ }).click();
  const sheet = page.getByRole('dialog', { name: 'Compare two prompts' });
  await expect(sheet.getByRole('note', { name: 'How they are related' })).toHaveText(
    'The abandoned prompt “BASH echo bashmade > c.txt” and #4 “WRITE e.txt after branch” are on two branches that part after #2 “WRITE a.txt version two”: one went on for 2 prompts, the other for 2 prompts.',
  );
  await expect(sheet.getByRole('region', { name: 'The branch of the abandoned prompt “BASH echo bashmade > c.txt”' })).toContainText('WRITE b.txt bee');
  await expect(sheet.getByRole('region', { name: 'The branch of #4 “WRITE e.txt after branch”' })).toContainText('WRITE d.txt branch two');
  await expect(sheet.locator('.compare-files')).toContainText('d.txt');
  await expect(sheet.locator('.compare-files')).toContainText('e.txt');
  await expect(sheet.getByRole('button', { name: 'Close' })).toBeFocused();
  await page.screenshot({ path: join(import.meta.dirname, '..', 'test-results', 'screenshots', 'compare-light.png') });
  await page.keyboard.press('Escape');
  await expect(sheet).toHaveCount(0);
});

test('export the session as one HTML file: downloaded, self-contained, every prompt in it', async ({ page }) => {
  await openBranched(page);
  await page.locator('.prompt-row').first().click();
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export session (.html)' }).click();
  const d = await download;
  expect(d.suggestedFilename()).toMatch(/\.html$/);
  const html = await readFile((await d.path())!, 'utf8');
  expect(html).toMatch(/^<!doctype html>/);
  expect(html).not.toMatch(/<script|<link /);
  for (const text of ['WRITE a.txt version one', 'BASH echo bashmade &gt; c.txt', 'WRITE e.txt after branch']) expect(html).toContain(text);
  await expect(page.getByRole('status').filter({ hasText: /Saved .*\.html/ })).toBeVisible();
});
