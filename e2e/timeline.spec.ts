import { execFileSync } from 'node:child_process';
import { appendFile, copyFile, cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { CLI, openApp, removeTempDirs, ROOT, serve, tempDir, transcriptOf, type Served } from './server.js';

test.afterAll(removeTempDirs);

const SHOTS = join(import.meta.dirname, '..', 'test-results', 'screenshots');
let s: Served;

test.beforeEach(async () => {
  s = await serve();
});
test.afterEach(async () => {
  await s.stop();
});

async function open(page: Page, scheme: 'light' | 'dark' = 'light') {
  await openApp(page, s, { colorScheme: scheme });
}

const promptRows = (page: Page) => page.locator('.prompt-row');

test('pick a session and see its prompts, the dead branch dimmed but there', async ({ page }) => {
  await open(page);
  await expect(page.locator('.session')).toHaveCount(3);
  // The branched session: 6 prompts, 2 of them on the abandoned branch.
  const branched = page.locator('.session[data-project$="branched"]');
  await branched.click();
  await expect(promptRows(page)).toHaveCount(6);
  await expect(page.locator('.prompt-row.dead')).toHaveCount(2);
  await expect(page.locator('.prompt-row.dead').first()).toContainText('BASH echo bashmade > c.txt');
  await expect(page.locator('.timeline-header')).toContainText('4 prompts on the live path · 2 on abandoned branches · 1 branch point');
  await page.screenshot({ path: join(SHOTS, 'timeline-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, 'timeline-dark.png') });
});

test('fork at a prompt through the preview; the new session shows up in the sidebar', async ({ page }) => {
  await open(page);
  await page.locator('.session[data-project$="linear"]').click();
  await promptRows(page).filter({ hasText: 'EDIT notes.md alpha gamma' }).click();
  await page.getByRole('button', { name: 'Fork here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet).toContainText("The new session will end after #3 'BASH echo bashmade > c.txt'.");
  await expect(sheet).toContainText('Leaves out #4, #5 (live).');
  await expect(sheet).toContainText('WRITE b.txt bee');
  await sheet.getByRole('button', { name: /Fork before this prompt/ }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Fork created');
  await expect(page.getByLabel('Resume command', { exact: true })).toHaveText(/^claude --resume [0-9a-f-]{36}$/);
  await expect(page.locator('.session')).toHaveCount(4);
  await expect(page.locator('.session.selected')).toContainText('↳ fork at #4 of WRITE a.txt version one');
  await expect(page.locator('.session.selected')).toHaveAttribute('title', /Forked from .*2ea8980a/);
  // Just written, but by us: no agent is writing it.
  await expect(page.locator('.session.selected .live-dot')).toHaveCount(0);
  await expect(promptRows(page)).toHaveCount(3);
  // Each prompt handed back in its own box, oldest first.
  await expect(page.locator('#reverted-prompt-0')).toHaveValue('EDIT notes.md alpha gamma');
  await expect(page.locator('#reverted-prompt-1')).toHaveValue('WRITE b.txt bee');
  await expect(page.getByRole('button', { name: 'Copy the resume command' })).toBeVisible();
});

test('rewrite in place, then undo it', async ({ page }) => {
  const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
  const original = await readFile(transcript);
  await open(page);
  await page.locator('.session[data-project$="linear"]').click();
  await promptRows(page).filter({ hasText: 'WRITE b.txt bee' }).click();
  await page.getByRole('button', { name: 'Rewrite here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet).toContainText('Leaves out #5 (live).');
  await sheet.locator('summary', { hasText: 'Details' }).click();
  await expect(sheet.locator('.sheet-details')).toContainText('transcript-backup');
  await sheet.getByRole('button', { name: /Rewrite: leave out 1 prompt/ }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Chat rewritten in place');
  await expect(promptRows(page)).toHaveCount(4);
  expect((await readFile(transcript)).length).toBeLessThan(original.length);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Put back the transcript');
  await expect(promptRows(page)).toHaveCount(5);
  expect((await readFile(transcript)).equals(original)).toBe(true);
});

test('restore code: the preview flags a file changed by hand, with its diff', async ({ page }) => {
  const project = join(s.projectsDir, 'linear');
  // A checkpoint of the current state, then a hand edit after it.
  execFileSync(process.execPath, [CLI, 'checkpoint', '--project', project], { env: { ...s.env, REWIND_NO_FORWARD: '1' } });
  await writeFile(join(project, 'a.txt'), 'edited by hand\n');
  await open(page);
  await page.locator('.session[data-project$="linear"]').click();
  await promptRows(page).filter({ hasText: 'WRITE a.txt version two' }).click();
  await page.getByRole('button', { name: 'Restore code to here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet.getByRole('alert')).toContainText('changed outside the agent');
  await expect(sheet.locator('.file').filter({ hasText: 'a.txt' })).toContainText('changed by hand');
  await sheet.locator('.file').filter({ hasText: 'a.txt' }).click();
  await expect(sheet.getByLabel('Changes to a.txt')).toContainText('edited by hand');
  await expect(sheet.locator('.diff-line.add').filter({ hasText: 'version one' })).toHaveCount(1);
  await sheet.getByRole('button', { name: /anyway/ }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText(/Restored \d+ file/);
  expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('version one\n');
});

test('live: a prompt appended to the transcript appears without a reload', async ({ page }) => {
  const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
  await open(page);
  await page.locator('.session[data-project$="linear"]').click();
  await expect(promptRows(page)).toHaveCount(5);
  const lines = (await readFile(transcript, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
  const last = [...lines].reverse().find((l) => l.type === 'assistant');
  await appendFile(transcript, `${JSON.stringify({ ...lines.find((l) => l.type === 'user'), uuid: 'e2e-live-0001', parentUuid: last.uuid, promptId: 'e2e', timestamp: new Date().toISOString(), message: { role: 'user', content: 'a prompt typed just now' } })}\n`);
  await expect(promptRows(page)).toHaveCount(6);
  await expect(promptRows(page).last()).toContainText('a prompt typed just now');
});

test('an append patches its one sidebar row (count, last activity) without listing all sessions again', async ({ page }) => {
  const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
  const lists: string[] = [];
  let lastList = Date.now();
  page.on('request', (r) => {
    if (!r.url().includes('/api/listSessions')) return;
    lists.push(r.url());
    lastList = Date.now();
  });
  await open(page);
  // Another session is open: the appended one is only a row in the list.
  await page.locator('.session[data-project$="branched"]').click();
  const row = page.locator('.session[data-project$="linear"]');
  await expect(row).toContainText('5 prompts');
  // Opening a session starts watching its project's store, which may list once more: let that settle.
  await expect.poll(() => Date.now() - lastList, { timeout: 15_000 }).toBeGreaterThan(1500);
  const before = lists.length;
  const lines = (await readFile(transcript, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
  const last = [...lines].reverse().find((l) => l.type === 'assistant');
  await appendFile(transcript, `${JSON.stringify({ ...lines.find((l) => l.type === 'user'), uuid: 'e2e-live-0002', parentUuid: last.uuid, promptId: 'e2e', timestamp: new Date().toISOString(), message: { role: 'user', content: 'counted at once' } })}\n`);
  await expect(row).toContainText('6 prompts');
  expect(lists.length).toBe(before);
});

test('filter and keyboard: / focuses the filter, arrows move, Enter previews, Esc closes', async ({ page }) => {
  await open(page);
  await page.keyboard.press('/');
  await expect(page.getByLabel('Filter sessions and prompts')).toBeFocused();
  await page.keyboard.type('SPAWN');
  await expect(page.locator('.session')).toHaveCount(1);
  // Prompt text across sessions, not only titles: two sessions edit notes.md.
  await page.getByLabel('Filter sessions and prompts').fill('alpha gamma');
  await expect(page.locator('.session')).toHaveCount(2);
  await expect(page.locator('.match').first()).toContainText('EDIT notes.md alpha gamma');
  await page.keyboard.press('Escape');
  await page.getByLabel('Filter sessions and prompts').fill('');
  await expect(page.locator('.session')).toHaveCount(3);
  await page.locator('.session[data-project$="linear"]').click();
  await expect(page.locator('.prompt-row.selected')).toContainText('WRITE b.txt bee');
  await page.locator('.rows').focus();
  await page.keyboard.press('ArrowUp');
  await expect(page.locator('.prompt-row.selected')).toContainText('EDIT notes.md');
  await page.keyboard.press('ArrowUp');
  await expect(page.locator('.prompt-row.selected')).toContainText('BASH echo');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('.prompt-row.selected')).toContainText('EDIT notes.md');
  // Enter goes to the prompt's actions (its first, Fork here, focused); Enter there opens its preview.
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.locator('.detail .actions .button').first()).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog')).toContainText('Fork here');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect((await readdir(join(s.claudeRoot, 'projects'))).length).toBe(3);
});

test('empty state teaches, and opens the demo', async ({ page }) => {
  await s.stop();
  s = await serve({ empty: true });
  await open(page);
  await expect(page.getByRole('heading', { name: 'No sessions yet' })).toBeVisible();
  await page.getByRole('button', { name: 'Open the demo' }).click();
  await expect(page.locator('.session')).toHaveCount(3);
});

test('a Codex CLI session: listed with its agent, read turn by turn, forked from the window for codex resume', async ({ page }) => {
  await s.stop();
  const codex = await tempDir('rewind-e2e-codex-');
  const rollout = join(codex, 'sessions', '2026', '01', '02', 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
  await mkdir(dirname(rollout), { recursive: true });
  await copyFile(join(ROOT, 'test', 'fixtures', 'public', 'codex-SYNTHETIC-tool-calls.jsonl'), rollout);
  // A real 0.169 session (its prompts are history items, not user_message events).
  await cp(join(ROOT, 'test', 'fixtures', 'codex-0.169', 'sessions'), join(codex, 'sessions'), { recursive: true });
  s = await serve({ codexHome: codex });
  await open(page);
  await page.locator('.session').filter({ hasText: 'List the synthetic files' }).click();
  await expect(page.locator('.timeline-header')).toContainText('Codex CLI 0.0.0-test');
  await expect(promptRows(page)).toHaveCount(1);
  // Codex's shell call is a terminal block with its output, like Claude's Bash.
  await page.getByRole('button', { name: /Ran find \. -maxdepth 1 -type f/ }).click();
  await expect(page.getByLabel('Terminal')).toContainText('$ find . -maxdepth 1 -type f');
  await expect(page.getByLabel('Terminal')).toContainText('./alpha.txt');
  await expect(page.getByLabel('Model and tokens')).toContainText('synthetic-model');
  await expect(page.locator('.turn')).not.toContainText('SYNTHETIC_ENCRYPTED_CONTENT');
  // The session's project folder (/workspace/synthetic-project) is not on this machine: no
  // checkpoints notice (nothing to install hooks into), and no other note.
  await expect(page.getByRole('note')).toHaveCount(0);
  await page.screenshot({ path: join(SHOTS, 'codex-light.png') });
  await page.locator('.session').filter({ hasText: 'WRITE notes/a.txt alpha-one' }).filter({ hasText: '4 prompts' }).click();
  await expect(page.locator('.timeline-header')).toContainText('Codex CLI 0.169.0');
  await expect(promptRows(page)).toHaveCount(4);
  await promptRows(page).filter({ hasText: 'BASH echo gamma-three' }).click();
  await page.getByRole('button', { name: 'Fork here' }).click();
  const sheet = page.getByRole('dialog');
  // Codex states the result as every agent does (it listed a bare count before).
  await expect(sheet.locator('.statement')).toContainText("The new session will end after #2 'WRITE b.txt beta-two'.");
  await expect(sheet.locator('.statement')).toContainText('Leaves out #3, #4 (live).');
  await sheet.getByRole('button', { name: /Fork before this prompt/ }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Fork created');
  await expect(page.getByLabel('Resume command', { exact: true })).toHaveText(/^codex resume [0-9a-f-]{36}$/);
  await expect(page.getByRole('button', { name: 'Copy the resume command' })).toBeVisible();
});

test('readable at 200% zoom: every action is still there and works', async ({ page }) => {
  // 200% zoom of a 1280x800 window is a 640x400 CSS viewport.
  await page.setViewportSize({ width: 640, height: 400 });
  await open(page);
  await page.getByRole('button', { name: /Sessions/ }).click();
  await page.locator('.session[data-project$="linear"]').click();
  // The details are a drawer here: picking a prompt opens it.
  await promptRows(page).last().click();
  for (const name of ['Fork here', 'Rewrite here', 'Restore code to here', 'Fork + restore code']) {
    const b = page.getByRole('button', { name });
    await b.scrollIntoViewIfNeeded();
    await expect(b).toBeVisible();
  }
  await page.getByRole('button', { name: 'Fork here' }).click();
  await expect(page.getByRole('dialog', { name: 'Fork here' })).toContainText('The new session will end after');
});
