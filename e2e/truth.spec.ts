import { appendFile, readFile, readdir, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { openApp, serve, transcriptOf, type Served } from './server.js';

const SHOTS = join(import.meta.dirname, '..', 'test-results', 'screenshots');
let s: Served;

test.beforeEach(async () => {
  s = await serve();
});
test.afterEach(async () => {
  await s.stop();
});

async function openSession(page: Page, name: string, scheme: 'light' | 'dark' = 'light') {
  await openApp(page, s, { colorScheme: scheme });
  await page.locator(`.session[data-project$="${name}"]`).click();
  await expect(page.locator('.prompt-row').first()).toBeVisible();
}

const row = (page: Page, text: string) => page.locator('.prompt-row').filter({ hasText: text });
const bg = (page: Page, sel: string) => page.locator(sel).evaluate((el) => getComputedStyle(el).backgroundColor);

test('a dead-branch rewrite: the preview names the live prompts it leaves out; focus starts on Cancel, stays in the sheet, and goes back to the row', async ({ page }) => {
  await openSession(page, 'branched');
  await row(page, 'BASH echo bashmade > c.txt').click();
  // Restoring code is not offered on this abandoned prompt, and the reason is on screen before any click.
  await expect(page.getByRole('button', { name: 'Restore code to here' })).toBeDisabled();
  await expect(page.locator('#why-restore')).toContainText('abandoned branch');
  await page.getByRole('button', { name: 'Rewrite here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet.locator('.statement')).toContainText("The session will end after #2 'WRITE a.txt version two'.");
  await expect(sheet.locator('.statement')).toContainText("Leaves out #3, #4 (live) and 'WRITE b.txt bee' (after it on its abandoned branch).");
  await expect(sheet.locator('.statement')).toContainText("Handed back to edit: 'BASH echo bashmade > c.txt' (from an abandoned branch).");
  // Byte offsets and paths are in the details, not up front.
  await expect(sheet.locator('.sheet-details dl')).toBeHidden();
  await expect(sheet.getByRole('button', { name: 'Cancel' })).toBeFocused();
  // The target, its branch's other prompt and the two live ones: every prompt the result no longer holds.
  const confirm = sheet.getByRole('button', { name: /Rewrite: leave out 4 prompts/ });
  await expect(confirm).toHaveAttribute('data-destructive', 'true');
  expect(await bg(page, '.sheet-footer .button.danger')).toBe('rgb(207, 34, 46)');
  await page.screenshot({ path: join(SHOTS, 'preview-dead-branch-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await bg(page, '.sheet-footer .button.danger')).toBe('rgb(207, 34, 46)');
  await page.screenshot({ path: join(SHOTS, 'preview-dead-branch-dark.png') });
  // Tab and Shift-Tab cycle inside the sheet.
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    expect(await sheet.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  }
  await page.keyboard.press('Shift+Tab');
  expect(await sheet.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  await page.keyboard.press('Escape');
  await expect(sheet).toHaveCount(0);
  await expect(row(page, 'BASH echo bashmade > c.txt')).toBeFocused();
});

test('a Claude in-place rewrite at live #3 names the abandoned branch it removes from the file, counts it on the button, and Undo brings it back', async ({ page }) => {
  await openSession(page, 'branched');
  await row(page, 'WRITE d.txt branch two').click();
  await page.getByRole('button', { name: 'Rewrite here' }).click();
  const sheet = page.getByRole('dialog');
  const statement = sheet.locator('.statement');
  await expect(statement).toContainText('Leaves out #3, #4 (live).');
  await expect(statement).toContainText("Also removes from the file 2 prompts of other abandoned branches: 'BASH echo bashmade > c.txt' and 'WRITE b.txt bee' (Undo brings them back).");
  await sheet.getByRole('button', { name: /Rewrite: leave out 4 prompts/ }).click();
  const result = page.getByRole('status', { name: 'Result' });
  await expect(result).toContainText('Chat rewritten in place');
  await expect(row(page, 'BASH echo bashmade > c.txt')).toHaveCount(0);
  await expect(row(page, 'WRITE b.txt bee')).toHaveCount(0);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(row(page, 'BASH echo bashmade > c.txt')).toHaveCount(1);
  await expect(row(page, 'WRITE b.txt bee')).toHaveCount(1);
  await expect(row(page, 'WRITE e.txt after branch')).toHaveCount(1);
});

test('the first prompt offers no fork or rewrite, and says why', async ({ page }) => {
  await openSession(page, 'linear');
  await row(page, 'WRITE a.txt version one').click();
  await expect(page.getByRole('button', { name: 'Fork here' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Rewrite here' })).toBeDisabled();
  await expect(page.locator('#why-fork')).toContainText('first prompt');
  await expect(page.getByRole('button', { name: 'Fork here' })).toHaveAttribute('title', /first prompt/);
});

test('Fork + restore code is one action: one Undo reverts both and goes back to the source session and prompt', async ({ page }) => {
  const project = join(s.projectsDir, 'linear');
  const before = await readFile(join(project, 'a.txt'), 'utf8');
  const dir = join(await transcriptOf(s.claudeRoot, '2ea8980a'), '..');
  const filesBefore = (await readdir(dir)).sort();
  await openSession(page, 'linear');
  await row(page, 'WRITE a.txt version two').click();
  await page.getByRole('button', { name: 'Fork + restore code' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet.locator('.statement')).toContainText("The new session will end after #1 'WRITE a.txt version one'.");
  await expect(sheet.getByRole('region', { name: 'Code' }).or(sheet.locator('section[aria-label="Code"]'))).toContainText('a.txt');
  await sheet.getByRole('button', { name: /Fork before this prompt and restore/ }).click();
  const result = page.getByRole('status', { name: 'Result' });
  await expect(result).toContainText(/Fork created · \d+ files? restored/);
  expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('version one\n');
  expect((await readdir(dir)).length).toBe(filesBefore.length + 1);
  // The copy button keeps its width when it says "Copied".
  const copy = page.getByRole('button', { name: 'Copy the resume command' });
  const w = (await copy.boundingBox())!.width;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await copy.click();
  await expect(page.getByRole('button', { name: /Copy the resume command: copied/ })).toContainText('Copied');
  expect((await page.getByRole('button', { name: /Copy the resume command/ }).boundingBox())!.width).toBe(w);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(result).toContainText('Undid the restore');
  await expect(result).toContainText('Removed fork');
  expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe(before);
  expect((await readdir(dir)).sort()).toEqual(filesBefore);
  await expect(page.getByRole('button', { name: 'Undo' })).toBeDisabled();
  await expect(page.locator('.session.selected')).not.toContainText('fork of');
  await expect(page.locator('.prompt-row.selected')).toContainText('WRITE a.txt version two');
  expect(await stat(join(project, 'a.txt')).then(() => true)).toBe(true);
});

test('the transcript changes while the preview is open: it says so, offers Review again, and the old preview cannot be confirmed', async ({ page }) => {
  const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
  await openSession(page, 'linear');
  await row(page, 'EDIT notes.md alpha gamma').click();
  await page.getByRole('button', { name: 'Fork here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet.locator('.statement')).toContainText('Leaves out #4, #5 (live).');
  const lines = (await readFile(transcript, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
  const last = [...lines].reverse().find((l) => l.type === 'assistant');
  await appendFile(transcript, `${JSON.stringify({ ...lines.find((l) => l.type === 'user'), uuid: 'e2e-stale-0001', parentUuid: last.uuid, promptId: 'e2e', timestamp: new Date().toISOString(), message: { role: 'user', content: 'typed while the preview was open' } })}\n`);
  await expect(sheet.getByRole('alert')).toContainText('This session changed after the preview was made');
  await expect(sheet.getByRole('button', { name: /Fork before this prompt/ })).toBeDisabled();
  await sheet.getByRole('button', { name: 'Review again' }).click();
  await expect(sheet.locator('.statement')).toContainText('Leaves out #4, #5, #6 (live).');
  await expect(sheet.getByRole('button', { name: 'Review again' })).toHaveCount(0);
  await expect(sheet.getByRole('button', { name: /Fork before this prompt/ })).toBeEnabled();
});

test('rewriting a session the agent is writing: warned before confirm, then a plain sentence with buttons, never a flag', async ({ page }) => {
  const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
  await openSession(page, 'linear');
  await row(page, 'WRITE b.txt bee').click();
  // The agent just wrote to it (no new line: only the time changes).
  await utimes(transcript, new Date(), new Date());
  await page.getByRole('button', { name: 'Rewrite here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet.getByRole('note').first()).toContainText(/may still be running|is writing this session/);
  await sheet.getByRole('button', { name: /Rewrite: leave out 1 prompt/ }).click();
  const alert = sheet.locator('.sheet-error');
  await expect(alert).toContainText('it may still be running');
  await expect(alert).not.toContainText('--');
  await expect(alert.getByRole('button', { name: 'Stop the agent and try again' })).toBeVisible();
  await alert.getByRole('button', { name: 'Rewrite anyway' }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Chat rewritten in place');
});
