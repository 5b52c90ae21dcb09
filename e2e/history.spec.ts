import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { openApp, serve, type Served } from './server.js';
import { replayLinear, withLine } from './replay.js';

let s: Served;
test.beforeEach(async () => {
  s = await serve();
});
test.afterEach(async () => {
  await s.stop();
});

/** WCAG A/AA (axe-core) on one open sheet only: the rest of the window has its own checks. */
async function expectAccessible(page: Page, selector: string) {
  const r = await new AxeBuilder({ page }).include(selector).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))).toEqual([]);
}

const exists = async (p: string) => !!(await stat(p).catch(() => null));

test('revert a middle prompt from the window: the conflict and its choice, then undo it from the History panel', async ({ page }) => {
  const project = join(s.projectsDir, 'linear');
  await replayLinear(s, project);
  await openApp(page, s);
  await page.locator('.session[data-project$="linear"]').click();
  await page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version two' }).click();
  await page.getByRole('button', { name: "Revert this prompt's changes" }).click();

  const sheet = page.getByRole('dialog', { name: "Revert this prompt's changes" });
  const conflict = sheet.getByRole('listitem', { name: 'Conflict in shared.ts' });
  await expect(conflict).toBeVisible();
  // Three ways: before #2, as #2 left it, now; each changed line marked by who changed it; the prompt by its number, no id.
  const view = conflict.getByRole('group', { name: 'shared.ts: before #2, as #2 left it, and now' });
  await expect(view.getByRole('region', { name: 'Before #2' }).locator('.tw-n .tw-text')).toHaveText('shared line 21');
  await expect(view.getByRole('region', { name: 'As #2 left it' }).locator('.tw-both')).toContainText('shared line 21 by #2');
  await expect(view.getByRole('region', { name: 'Now' }).locator('.tw-later')).toContainText('shared line 21 by #4');
  await expect(sheet).not.toContainText(/[0-9]{8}T[0-9]{6}|Nothing to revert/);
  const confirm = sheet.locator('.sheet-footer .button.primary');
  await expect(confirm).toBeDisabled();
  await expect(confirm).toHaveText('Choose for 1 conflicted file first');
  await expect(sheet.getByRole('list', { name: 'Files that will change' }).locator('.file')).toHaveCount(2);
  await expectAccessible(page, '.sheet');
  await conflict.getByRole('radio', { name: 'Take it as before #2' }).click();
  await expect(conflict.getByRole('radio', { name: 'Take it as before #2' })).toBeChecked();
  await expect(confirm).toHaveText('Revert 3 files');
  await confirm.click();
  await expect(sheet).toBeHidden();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText("Reverted prompt");

  // #2's own changes went back; #3, #4 and #5 kept theirs, except the line the user chose.
  expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('version one\n');
  expect(await exists(join(project, 'mid.txt'))).toBe(false);
  expect(await readFile(join(project, 'shared.ts'), 'utf8')).toBe(withLine(-1, ''));
  expect(await readFile(join(project, 'c.txt'), 'utf8')).toBe('bashmade\n');
  expect(await readFile(join(project, 'b.txt'), 'utf8')).toBe('bee\n');

  await page.getByRole('button', { name: 'History', exact: true }).click();
  const panel = page.getByRole('dialog', { name: 'History' });
  const entry = panel.locator('.history-entry[data-kind="revert"]');
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText('Reverted the changes of #2 “WRITE a.txt version two”');
  await expect(entry).toContainText('can be undone');
  await expect(entry).toContainText('shared.ts');
  await expectAccessible(page, '.history-panel');
  // The newest action: undone at once (Redo is its way back); its card shows what became of it.
  await entry.getByRole('button', { name: 'Undo' }).click();
  await expect(entry).toHaveAttribute('data-state', 'undone');
  await expect(entry).toContainText('undone just now');
  await expect(panel.locator('.history-entry')).toHaveCount(1);
  expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('version two\n');
  expect(await readFile(join(project, 'mid.txt'), 'utf8')).toBe('made by #2\n');
  expect(await readFile(join(project, 'shared.ts'), 'utf8')).toBe(withLine(20, 'shared line 21 by #4'));

  // And Redo puts the revert back.
  await entry.getByRole('button', { name: 'Redo' }).click();
  await expect(entry).toHaveAttribute('data-state', 'done');
  await expect(entry).toContainText('redone just now');
  expect(await exists(join(project, 'mid.txt'))).toBe(false);
});
