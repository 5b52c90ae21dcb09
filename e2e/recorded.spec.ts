import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { PRINT_FLAGS, runClaude } from '../test/conformance/claude-cli.js';
import { claudeOrSkip, withApi } from '../test/conformance/harness.js';
import { runScenario, snapshotTree, type Scenario } from '../test/conformance/scenario.js';
import type { ScriptedApi } from '../test/conformance/scripted-api.js';
import { removeTempDirs, serve, type Served } from './server.js';

test.afterAll(removeTempDirs);

// A session recorded by the real Claude Code while the app is open: the data users will have.
const claude = claudeOrSkip();
const SHOTS = join(import.meta.dirname, '..', 'test-results', 'screenshots');
let api: ScriptedApi;
let s: Served;

test.beforeEach(async () => {
  api = await withApi();
});
test.afterEach(async () => {
  await s?.stop();
  await api?.close();
});

test('real Claude Code session: install hooks from the banner, new prompts arrive live with our checkpoints, restore undoes a Bash change, Undo puts it back', async ({ page }) => {
  test.skip(!('bin' in claude), 'the pinned Claude Code CLI cannot run here');
  test.setTimeout(240_000);
  const bin = (claude as { bin: string }).bin;
  // Two prompts before our hooks exist: Claude's own checkpoints only.
  const sc: Scenario = await runScenario(
    { name: 'recorded', files: { 'a.txt': 'v0\n' }, steps: [{ prompt: 'WRITE a.txt version one' }, { prompt: 'WRITE a.txt version two' }] },
    { bin, apiUrl: api.url },
    api,
  );
  s = await serve({ claudeRoot: sc.env.configDir });
  await page.goto(s.url);
  await page.locator('.session').first().click();
  const rows = page.locator('.prompt-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.locator('.marker.native')).toHaveCount(2);
  await expect(rows.locator('.marker.ours')).toHaveCount(0);

  await expect(page.getByRole('note')).toContainText('Rewind checkpoints are off');
  // The sheet: the change to Claude Code's settings as a diff, then the file named once written.
  await page.getByRole('note').getByRole('button', { name: 'Set up…' }).click();
  const setup = page.getByRole('dialog', { name: 'Set up checkpoints' });
  await expect(setup.locator('.hooks-plan .diff')).toHaveCount(1);
  await setup.getByRole('button', { name: /^Install hooks for / }).click();
  await expect(page.getByRole('dialog', { name: 'Checkpoints set up' })).toContainText('Wrote .claude/settings.local.json for Claude Code');
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('note')).toHaveCount(0);
  expect(await readFile(join(sc.project, '.claude', 'settings.local.json'), 'utf8')).toContain('UserPromptSubmit');

  // The agent goes on in its terminal; the window follows.
  const more = async (prompt: string) => {
    const r = await runClaude(sc.env, sc.project, ['-p', prompt, '--resume', sc.sessionId, ...PRINT_FLAGS]);
    expect(r.code, r.stderr).toBe(0);
  };
  await more('BASH echo bashmade > c.txt');
  await expect(rows).toHaveCount(3);
  await more('WRITE b.txt bee');
  await expect(rows).toHaveCount(4);
  await expect(page.locator('.session .live-dot')).toHaveCount(1);
  await expect(page.locator('.timeline-header .live')).toHaveText('live');
  const bashRow = rows.filter({ hasText: 'BASH echo bashmade' });
  await expect(bashRow.locator('.marker.ours')).toHaveCount(1);
  await expect(rows.filter({ hasText: 'WRITE b.txt bee' }).locator('.marker.ours')).toHaveCount(1);

  // Back to before the Bash prompt: our checkpoint knows c.txt, which Claude's never saw.
  const before = { 'a.txt': 'version two\n' };
  expect(await snapshotTree(sc.project)).toEqual({ ...before, 'b.txt': 'bee\n', 'c.txt': 'bashmade\n' });
  await bashRow.click();
  await page.getByRole('button', { name: 'Restore code to here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet.getByRole('list', { name: 'Files that will change' }).locator('.file')).toHaveCount(2);
  await expect(sheet.locator('.file').filter({ hasText: 'c.txt' }).getByLabel('delete')).toBeVisible();
  await expect(sheet.locator('.file').filter({ hasText: 'b.txt' }).getByLabel('delete')).toBeVisible();
  await expect(sheet.getByRole('alert')).toHaveCount(0);
  await page.screenshot({ path: join(SHOTS, 'recorded-restore-light.png') });
  await sheet.getByRole('button', { name: 'Restore 2 files' }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Restored: deleted 2 files made since');
  expect(await snapshotTree(sc.project)).toEqual(before);

  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByRole('status', { name: 'Result' })).not.toContainText('Restored: deleted 2 files made since');
  await expect.poll(() => snapshotTree(sc.project)).toEqual({ ...before, 'b.txt': 'bee\n', 'c.txt': 'bashmade\n' });
});
