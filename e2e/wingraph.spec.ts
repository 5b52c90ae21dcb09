import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { generateRewound } from '../bench/generate-rewound.js';
import { openApp, removeTempDirs, serve, tempDir, type Served } from './server.js';

test.afterAll(removeTempDirs);

const SHOTS = join(import.meta.dirname, '..', 'test-results', 'screenshots');

const selectedRow = (page: Page) => page.locator('.prompt-row.selected');

/**
 * Every row drawn in the timeline's viewport has its text on screen, not empty, right of the graph.
 * Rows are drawn in the frame after a scroll (the list is virtualized): measured once they are there.
 */
async function expectTextInEveryVisibleRow(page: Page) {
  const measure = () => page.evaluate(() => {
    const list = document.querySelector('.rows')!.getBoundingClientRect();
    return [...document.querySelectorAll('.rows .prompt-row')]
      .map((r) => {
        const b = r.getBoundingClientRect();
        const t = r.querySelector('.prompt-text')!;
        const tb = t.getBoundingClientRect();
        return { inView: b.bottom > list.top && b.top < list.bottom, text: t.textContent ?? '', left: tb.left, right: tb.right, width: tb.width, listLeft: list.left, listRight: list.right };
      })
      .filter((x) => x.inView);
  });
  await expect.poll(async () => (await measure()).length).toBeGreaterThan(5);
  const boxes = await measure();
  expect(boxes.length).toBeGreaterThan(5);
  for (const b of boxes) {
    expect(b.text.trim().length).toBeGreaterThan(0);
    expect(b.left).toBeGreaterThanOrEqual(b.listLeft);
    expect(b.left).toBeLessThan(b.listLeft + 200);
    expect(b.width).toBeGreaterThan(100);
    expect(b.right).toBeLessThanOrEqual(b.listRight + 1);
  }
}

test.describe('a session of 10,000 messages with 275 native rewinds', () => {
  let s: Served;
  let want: Awaited<ReturnType<typeof generateRewound>>;
  test.beforeEach(async () => {
    const root = await tempDir('rewind-e2e-rewound-');
    const dir = join(root, 'projects', '-home-dev-project');
    await mkdir(dir, { recursive: true });
    want = await generateRewound(join(dir, '00000000-0000-4000-8000-0000000e7ee0.jsonl'), { messages: 10_000, rewinds: 275 });
    s = await serve({ claudeRoot: root });
  });
  test.afterEach(async () => {
    await s.stop();
  });

  test('opens with text in every row, the named counts in the header, a narrow graph', async ({ page }) => {
    await openApp(page, s);
    await expect(selectedRow(page)).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('.timeline-header')).toContainText(`${want.livePrompts} prompts on the live path · ${want.abandonedPrompts} on abandoned branches · ${want.branchPoints} branch points`);
    await expect(page.locator('.session.selected')).toContainText(`${want.livePrompts} prompts · ${want.abandonedPrompts} abandoned`);
    await expectTextInEveryVisibleRow(page);
    const graph = await page.locator('.rows .lanes').first().boundingBox();
    expect(graph!.width).toBeLessThan(80);
    // Through the whole list: top, middle, bottom.
    await page.keyboard.press('Home');
    await expectTextInEveryVisibleRow(page);
    await page.locator('.rows').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await expectTextInEveryVisibleRow(page);
    await page.screenshot({ path: join(SHOTS, 'rewound-10k.png') });
  });

  test('abandoned branches are collapsed with their count, expand, jump to the branch point and back', async ({ page }) => {
    await openApp(page, s);
    await expect(selectedRow(page)).toBeVisible({ timeout: 30_000 });
    await page.keyboard.press('End');
    // Walk up to the nearest collapsed branch.
    for (let i = 0; i < 60 && !(await selectedRow(page).evaluate((e) => e.classList.contains('collapsed-row'))); i++) await page.keyboard.press('ArrowUp');
    const branch = selectedRow(page);
    await expect(branch).toContainText(/Abandoned branch · \d+ prompts?/);
    const count = Number(/Abandoned branch · (\d+)/.exec((await branch.textContent())!)![1]);
    const rowsBefore = await page.evaluate(() => document.querySelector('.rows > div')!.clientHeight);
    await page.keyboard.press('Enter');
    await expect(selectedRow(page)).not.toHaveClass(/collapsed-row/);
    expect(await page.evaluate(() => document.querySelector('.rows > div')!.clientHeight)).toBe(rowsBefore + (count - 1) * 56);
    await expect(selectedRow(page)).toHaveClass(/dead/);
    const deadText = await selectedRow(page).locator('.prompt-text').textContent();
    const from = Number(/from #(\d+)/.exec((await selectedRow(page).textContent())!)![1]);
    await page.keyboard.press('p');
    await expect(selectedRow(page).locator('.num')).toHaveText(String(from));
    await expect(page.locator('.rows')).toBeFocused();
    await page.keyboard.press('Backspace');
    await expect(selectedRow(page).locator('.prompt-text')).toHaveText(deadText!);
    // ← collapses it again.
    await page.keyboard.press('ArrowLeft');
    await expect(page.locator('.prompt-row.selected.collapsed-row')).toContainText(`${count} prompt`);
  });
});

test.describe('keyboard, palette and filter on the bundled sessions', () => {
  let s: Served;
  test.beforeEach(async () => {
    s = await serve();
  });
  test.afterEach(async () => {
    await s.stop();
  });

  test('focus is the selection: arrows move the ring in the sidebar, then in the timeline', async ({ page }) => {
    await openApp(page, s);
    await page.locator('.session[data-project$="linear"]').click();
    const nav = page.locator('.session-groups');
    const order = await page.locator('.session').evaluateAll((xs) => xs.map((x) => x.getAttribute('data-project')));
    const at = order.findIndex((p) => p!.endsWith('linear'));
    await page.keyboard.press(at === order.length - 1 ? 'ArrowUp' : 'ArrowDown');
    const next = order[at === order.length - 1 ? at - 1 : at + 1]!;
    // The selected session, the focus ring (the list's active row) and the timeline follow together.
    await expect(page.locator('.session.selected')).toHaveAttribute('data-project', next);
    await expect(page.locator('.wg-cursor .session')).toHaveAttribute('data-project', next);
    await expect(nav).toBeFocused();
    await expect(page.locator('.wg-cursor .session')).toHaveClass(/selected/);
    // Into the timeline: Enter moves focus there; the ring is on its selected row.
    await page.keyboard.press('Enter');
    await expect(page.locator('.rows')).toBeFocused();
    await page.keyboard.press('Home');
    const first = await page.locator('.rows').getAttribute('aria-activedescendant');
    await expect(page.locator(`#${first}`)).toHaveClass(/selected/);
    await expect(selectedRow(page).locator('.num')).toHaveText('1');
    await page.keyboard.press('j');
    await expect(selectedRow(page).locator('.num')).toHaveText('2');
    await page.keyboard.press('End');
    const outline = await selectedRow(page).evaluate((e) => getComputedStyle(e).outlineStyle);
    expect(outline).toBe('solid');
  });

  test('every action has its shortcut on its button, and the shortcut opens its preview', async ({ page }) => {
    await openApp(page, s);
    await page.locator('.session[data-project$="linear"]').click();
    await page.locator('.prompt-row').filter({ hasText: 'EDIT notes.md alpha gamma' }).click();
    for (const [name, key] of [['Fork here', 'F'], ['Rewrite here', 'R'], ['Restore code to here', 'C'], ['Fork + restore code', 'B']] as const) {
      const button = page.getByRole('button', { name: new RegExp(`^${name.replace('+', '\\+')}`) });
      await expect(button.locator('kbd')).toHaveText(key);
      await expect(button).toHaveAttribute('aria-keyshortcuts', key);
      await page.locator('.rows').focus();
      await page.keyboard.press(key.toLowerCase());
      await expect(page.getByRole('dialog')).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0);
    }
  });

  test('the command palette lists sessions, prompts and actions; #N goes to a prompt', async ({ page }) => {
    await openApp(page, s);
    await page.locator('.session[data-project$="linear"]').click();
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await expect(palette).toBeVisible();
    // One header per group; its rows under it.
    await expect(palette.getByRole('group', { name: 'Actions' })).toBeVisible();
    await expect(palette.getByRole('option', { name: 'Fork here' })).toBeVisible();
    await expect(palette.getByRole('group', { name: 'Sessions' }).getByRole('option')).toHaveCount(3);
    await expect(palette.getByRole('group', { name: 'Prompts' }).getByRole('option')).toHaveCount(5);
    await page.screenshot({ path: join(SHOTS, 'palette-light.png') });
    await page.keyboard.type('#3');
    await expect(palette.getByRole('option').first()).toContainText('Go to #3: BASH echo');
    await page.keyboard.press('Enter');
    await expect(palette).toHaveCount(0);
    await expect(selectedRow(page)).toContainText('BASH echo');
    await expect(page.locator('.rows')).toBeFocused();
    // Sessions by name, with ↓ and Enter.
    await page.keyboard.press('Control+k');
    await page.keyboard.type('spawn');
    await page.keyboard.press('Enter');
    await expect(page.locator('.session.selected')).toHaveAttribute('data-project', /subagent$/);
    // g opens it on "#".
    await page.locator('.rows').focus();
    await page.keyboard.press('g');
    await expect(palette.getByRole('combobox')).toHaveValue('#');
    await page.keyboard.press('Escape');
    await expect(palette).toHaveCount(0);
  });

  test('filter: highlighted matches and a count; ↓ walks the results, Enter opens the first, Esc clears', async ({ page }) => {
    await openApp(page, s);
    await page.keyboard.press('/');
    await page.keyboard.type('alpha gamma');
    await expect(page.locator('.wg-filter-count')).toHaveText('2 prompts in 2 sessions');
    await expect(page.locator('.match mark').first()).toHaveText('alpha gamma');
    await page.screenshot({ path: join(SHOTS, 'filter-light.png') });
    // Enter opens the first match: its session, the prompt selected, focus in the timeline.
    const firstMatch = page.locator('.match').first();
    const firstSession = await page.locator('.session').first().getAttribute('data-project');
    await page.keyboard.press('Enter');
    await expect(page.locator('.session.selected')).toHaveAttribute('data-project', firstSession!);
    await expect(selectedRow(page)).toContainText('EDIT notes.md alpha gamma');
    await expect(page.locator('.rows')).toBeFocused();
    // ↓ from the filter goes into the results, one at a time (sessions and matches).
    await page.getByLabel('Filter sessions and prompts').focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.locator('.session-groups')).toBeFocused();
    await expect(page.locator('.wg-cursor')).toHaveClass(/session/);
    await page.keyboard.press('ArrowDown');
    await expect(page.locator('.wg-cursor')).toHaveClass(/match/);
    await expect(firstMatch).toHaveClass(/wg-cursor/);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect(page.locator('.wg-cursor')).toHaveClass(/match/);
    await expect(selectedRow(page)).toContainText('EDIT notes.md alpha gamma');
    // Esc in the filter clears it.
    await page.getByLabel('Filter sessions and prompts').focus();
    await page.keyboard.press('Escape');
    await expect(page.getByLabel('Filter sessions and prompts')).toHaveValue('');
    await expect(page.locator('.session')).toHaveCount(3);
    await expect(page.locator('.wg-filter-count')).toHaveCount(0);
  });
});

test.describe('a heavy history: 400 sessions in 40 projects', () => {
  let s: Served;
  let root: string;
  const fileOf = (i: number) => join(root, 'projects', `-home-dev-p${i % 40}`, `00000000-0000-4000-8000-${String(i).padStart(12, '0')}.jsonl`);
  test.beforeEach(async () => {
    root = await tempDir('rewind-e2e-many-');
    for (let i = 0; i < 400; i++) {
      const sessionId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      const ts = new Date(Date.parse('2026-10-01T00:00:00Z') + i * 3600_000).toISOString();
      const line = { type: 'user', uuid: `${sessionId.slice(0, 24)}${String(i + 1).padStart(12, '0')}`, parentUuid: null, isSidechain: false, userType: 'external', cwd: `/home/dev/p${i % 40}`, sessionId, version: '2.1.330', timestamp: ts, message: { role: 'user', content: `session ${i} first prompt` } };
      await mkdir(join(fileOf(i), '..'), { recursive: true });
      await writeFile(fileOf(i), `${JSON.stringify(line)}\n`);
    }
    s = await serve({ claudeRoot: root });
  });
  test.afterEach(async () => {
    await s.stop();
  });

  test('the sidebar draws only what is on screen, and a session being written moves nothing', async ({ page }) => {
    await openApp(page, s);
    const nav = page.locator('.session-groups');
    await expect(page.locator('.session').first()).toBeVisible();
    expect(await page.locator('.session').count()).toBeLessThan(60);
    // The first five groups from the top of the list.
    const groupsOnTop = async () => {
      await nav.evaluate((el) => (el.scrollTop = 0));
      return (await page.locator('.wg-group').allTextContents()).slice(0, 5);
    };
    // Sessions the index has not reached yet have no start time (listed by activity) until it does.
    await expect.poll(async () => (await groupsOnTop())[0], { timeout: 20_000 }).toBe('dev/p39');
    const before = await groupsOnTop();
    // The oldest session (bottom of the list) gets a new prompt: it goes live, nothing reorders.
    const line = { type: 'user', uuid: '00000000-0000-4000-8000-0000000fffff', parentUuid: '00000000-0000-4000-8000-000000000001', isSidechain: false, userType: 'external', cwd: '/home/dev/p0', sessionId: '00000000-0000-4000-8000-000000000000', version: '2.1.330', timestamp: new Date().toISOString(), message: { role: 'user', content: 'a new prompt' } };
    await appendFile(fileOf(0), `${JSON.stringify(line)}\n`);
    await nav.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect(page.locator('.session[data-project="/home/dev/p0"] .live-dot').first()).toBeVisible({ timeout: 15_000 });
    await expect(page.locator('.wg-group').last()).toHaveText('dev/p0');
    await expect.poll(groupsOnTop).toEqual(before);
  });
});
