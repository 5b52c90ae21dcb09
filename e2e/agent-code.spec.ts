import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { expect, test } from '@playwright/test';
import { droidHome, treeOf } from '../test/agent-store.js';
import { openApp, removeTempDirs, serve, type Served } from './server.js';

test.afterAll(removeTempDirs);

let s: Served | null = null;
test.afterEach(async () => {
  await s?.stop();
  s = null;
});

test("Restore code and Fork + restore code from Droid's own snapshots: the preview lists A/M/D with diffs, Undo puts the files back", async ({ page }) => {
  const h = await droidHome();
  s = await serve({ env: { FACTORY_HOME_OVERRIDE: dirname(h.root) } });
  await openApp(page, s);
  await page.locator('.session').filter({ hasText: 'WRITE a.txt version one' }).first().click();
  await page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version two' }).click();
  await page.getByRole('button', { name: 'Restore code to here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet).toContainText("Droid's own snapshots");
  await expect(sheet.locator('.file').filter({ hasText: 'a.txt' })).toBeVisible();
  await expect(sheet.locator('.file').filter({ hasText: 'b.txt' })).toBeVisible();
  await expect(sheet.locator('.diff-line.add').filter({ hasText: 'version one' })).toHaveCount(1);
  await sheet.getByRole('button', { name: 'Restore 2 files' }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Restored 2 files (1 written back, 1 deleted)');
  expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });

  // Both at once: a fork before the prompt and the files as they were; one Undo reverts both.
  const sessions = dirname(h.transcript);
  await page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version two' }).click();
  await page.getByRole('button', { name: 'Fork + restore code' }).click();
  await expect(sheet.locator('.file').filter({ hasText: 'b.txt' })).toBeVisible();
  await sheet.getByRole('button', { name: /^Fork before this prompt and restore 2 files/ }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Fork created');
  expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
  expect((await readdir(sessions)).filter((f) => f.endsWith('.jsonl'))).toHaveLength(2);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
  await expect.poll(async () => (await readdir(sessions)).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
});
