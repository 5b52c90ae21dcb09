import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { openApp, removeTempDirs, ROOT, serve, tempDir, type Served } from './server.js';

/**
 * The window as the second review (issue 39) used it: the checkpoints sheet, keyboard first, the
 * palette, History, loading states and narrow layouts, in light and dark, at 860, 1024 and 1280 px.
 */
test.afterAll(removeTempDirs);

const SHOTS = join(ROOT, 'test-results', 'screenshots');
const FIX = join(ROOT, 'test', 'fixtures');
const WIDTHS = [860, 1024, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;
const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `review-${name}.png`) });

async function expectAccessible(page: Page, what: string, include?: string) {
  let b = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  if (include) b = b.include(include);
  const r = await b.analyze();
  expect(
    r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`)),
    `axe on ${what}`,
  ).toEqual([]);
}

/** One project folder with sessions of three agents (Droid, Qwen, Gemini; recorded by their real CLIs), none with Rewind's hooks. */
async function threeAgents(): Promise<{ env: NodeJS.ProcessEnv; project: string; home: string }> {
  const h = await tempDir('rewind-e2e-review-');
  const project = join(h, 'projects', 'linear');
  await mkdir(project, { recursive: true });
  const past = new Date(Date.now() - 3600_000);
  const put = async (src: string, dst: string) => {
    await mkdir(join(dst, '..'), { recursive: true });
    await writeFile(dst, (await readFile(src, 'utf8')).replaceAll('/home/dev/projects/linear', project).replaceAll('/home/dev/projects/proj', project));
    await utimes(dst, past, past);
  };
  const DROID = '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e';
  const QWEN = 'e217908e-90f9-463a-8526-e6d70c1a6d5c';
  const GEMINI = 'session-2026-11-23T11-33-f2a3037a.jsonl';
  const droidDir = join(h, 'd', '.factory', 'sessions', project.replace(/[\\/]/g, '-'));
  await put(join(FIX, 'droid-real', `${DROID}.jsonl`), join(droidDir, `${DROID}.jsonl`));
  await put(join(FIX, 'droid-real', `${DROID}.settings.json`), join(droidDir, `${DROID}.settings.json`));
  await put(join(FIX, 'qwen-real', 'native-rewind', `${QWEN}.jsonl`), join(h, 'q', 'projects', project.replace(/[\\/]/g, '-'), 'chats', `${QWEN}.jsonl`));
  const g = join(h, 'g', '.gemini');
  await put(join(FIX, 'gemini-real', GEMINI), join(g, 'tmp', 'linear', 'chats', GEMINI));
  await writeFile(join(g, 'projects.json'), JSON.stringify({ projects: { [project]: 'linear' } }));
  return { env: { FACTORY_HOME_OVERRIDE: join(h, 'd'), QWEN_HOME: join(h, 'q'), GEMINI_CLI_HOME: join(h, 'g') }, project, home: h };
}

/** A new width, and the window's layout caught up with it (narrow at 1000 px and below). */
async function resize(page: Page, width: number) {
  await page.setViewportSize({ width, height: 760 });
  await expect(page.locator('.app')).toHaveClass(width <= 1000 ? /\bnarrow\b/ : /^(?!.*\bnarrow\b)/);
}

async function pickSession(page: Page, selector: string) {
  const row = page.locator(selector).first();
  if (!(await row.isVisible())) await page.getByRole('button', { name: /Sessions/ }).click();
  await row.click();
}

test.describe('checkpoints set up in a sheet', () => {
  let s: Served;
  let x: Awaited<ReturnType<typeof threeAgents>>;
  test.beforeEach(async () => {
    x = await threeAgents();
    s = await serve({ env: x.env });
  });
  test.afterEach(async () => {
    await s.stop();
  });

  for (const scheme of SCHEMES) {
    test(`the notice is one line that fits with three agents, at 860, 1024 and 1280 px (${scheme})`, async ({ page }) => {
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      for (const width of WIDTHS) {
        await resize(page, width);
        await pickSession(page, `.session[data-project="${x.project}"]`);
        const note = page.getByRole('note', { name: 'Checkpoints' });
        await expect(note).toContainText('Rewind checkpoints are off for 3 agents');
        const m = await note.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const text = el.querySelector('.banner-text')!;
          const buttons = [...el.querySelectorAll('button')].map((b) => b.getBoundingClientRect());
          return { height: box.height, clipped: text.scrollWidth > text.clientWidth, inside: buttons.every((b) => b.left >= box.left && b.right <= box.right + 0.5) };
        });
        expect(m.height, `${width} px: one line`).toBeLessThan(44);
        expect(m.clipped, `${width} px: the text is whole`).toBe(false);
        expect(m.inside, `${width} px: the buttons are inside`).toBe(true);
        await shot(page, `hooks-notice-${width}-${scheme}`);
      }
    });
  }

  test('each agent\'s row says the counts its open timeline says, and where the session ended', async ({ page }) => {
    await openApp(page, s, { colorScheme: 'light', reducedMotion: 'reduce' });
    const rows = page.locator(`.session[data-project="${x.project}"]`);
    await expect(rows).toHaveCount(3);
    for (let i = 0; i < 3; i++) {
      const meta = (await rows.nth(i).locator('.session-meta').first().innerText()).split(' · ');
      await rows.nth(i).click();
      const counts = (await page.locator('.wg-counts').innerText()).trim();
      const live = /^(\d+) prompts? on the live path/.exec(counts)![1];
      const dead = /(\d+) on abandoned branch/.exec(counts)?.[1];
      expect(meta, counts).toContain(`${live} prompt${live === '1' ? '' : 's'}`);
      if (dead) expect(meta, counts).toContain(`${dead} abandoned`);
      else expect(meta.join(' · ')).not.toContain('abandoned');
    }
    await expect(rows.filter({ hasText: 'Qwen' }).locator('.session-meta')).toContainText('2 prompts · 2 abandoned');
    await expect(rows.first().locator('.session-last')).toContainText('last “');
  });

  test('pick the agents, see each change as a diff, confirm: every file written is named, with Remove', async ({ page }) => {
    await openApp(page, s, { colorScheme: 'dark', reducedMotion: 'reduce' });
    await pickSession(page, `.session[data-project="${x.project}"]`);
    await page.getByRole('note', { name: 'Checkpoints' }).getByRole('button', { name: 'Set up…' }).click();
    const sheet = page.getByRole('dialog', { name: 'Set up checkpoints' });
    await expect(sheet).toBeVisible();
    // Nothing is written before the confirm: each agent's change is a dry run, shown as a diff.
    await expect(sheet.getByRole('checkbox')).toHaveCount(3);
    await expect(sheet.locator('.hooks-plan .diff')).toHaveCount(3);
    await expect(sheet.locator('.hooks-plan').first().locator('.diff-line.add').first()).toBeVisible();
    await expect(sheet.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await expectAccessible(page, 'the hooks sheet', '.hooks-sheet');
    await shot(page, 'hooks-sheet-dark');
    const qwen = sheet.getByRole('checkbox', { name: 'Qwen Code' });
    await qwen.uncheck();
    await expect(sheet.locator('.hooks-plan')).toHaveCount(2);
    await sheet.getByRole('button', { name: 'Install hooks for 2 agents' }).click();

    const done = page.getByRole('dialog', { name: 'Checkpoints set up' });
    const files = done.getByRole('list', { name: 'Files written' }).getByRole('listitem');
    await expect(files).toHaveCount(2);
    await expect(done.getByRole('button', { name: 'Done' })).toBeFocused();
    // Droid and Gemini keep their hooks in their own homes by default: named in full (a file in the project is named as the project sees it).
    for (const [name, shown, file] of [
      ['Factory Droid', join(x.home, 'd', '.factory', 'hooks.json'), join(x.home, 'd', '.factory', 'hooks.json')],
      ['Gemini CLI', join(x.home, 'g', '.gemini', 'settings.json'), join(x.home, 'g', '.gemini', 'settings.json')],
    ] as const) {
      const item = files.filter({ hasText: name });
      await expect(item).toContainText(`Wrote ${shown} for ${name}`);
      await expect(item).toContainText('rewind-app hooks uninstall --agent');
      expect(await readFile(file, 'utf8')).toContain('rewind-app');
    }
    await expectAccessible(page, 'the hooks sheet, done', '.hooks-sheet');
    await shot(page, 'hooks-done-dark');
    // Remove takes one agent's entries out again.
    await files.filter({ hasText: 'Gemini CLI' }).getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(files.filter({ hasText: 'Gemini CLI' })).toContainText("Removed Rewind's hooks from");
    expect(await readFile(join(x.home, 'g', '.gemini', 'settings.json'), 'utf8').catch(() => '')).not.toContain('rewind-app');
    await done.getByRole('button', { name: 'Done' }).click();
    // The notice now names the two agents still without hooks.
    await expect(page.getByRole('note', { name: 'Checkpoints' })).toContainText('Rewind checkpoints are off for Qwen Code and Gemini CLI');
  });
});

test.describe('on the bundled sessions', () => {
  let s: Served;
  test.beforeEach(async () => {
    s = await serve();
  });
  test.afterEach(async () => {
    await s.stop();
  });

  test('keyboard: Enter goes to the actions, Confirm lands on Copy, Ctrl+Z undoes back to the row, Shift+Ctrl+Z redoes', async ({ page }) => {
    await openApp(page, s, { colorScheme: 'light', reducedMotion: 'reduce' });
    await page.locator('.session[data-project$="linear"]').click();
    const row = page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' });
    await row.click();
    const uuid = (await row.getAttribute('id'))!;
    // Enter: no preview opens; the focus goes to the prompt's first action.
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(page.locator('.detail .actions .button').first()).toBeFocused();
    await page.keyboard.press('Enter');
    const sheet = page.getByRole('dialog', { name: 'Fork here' });
    await expect(sheet).toBeVisible();
    await sheet.getByRole('button', { name: /Fork before this prompt/ }).click();
    await expect(page.getByRole('button', { name: 'Copy the resume command' })).toBeFocused();
    await shot(page, 'result-focus-light');

    // Ctrl+Z says what it would take back first (e2e/window-finish.spec.ts holds the dialog); Enter confirms.
    await page.keyboard.press('Control+z');
    await expect(page.getByRole('dialog', { name: 'Undo' }).getByRole('button', { name: 'Undo', exact: true })).toBeEnabled();
    await page.keyboard.press('Enter');
    const result = page.getByRole('status', { name: 'Result' });
    await expect(result).toContainText(/Removed fork/);
    await expect(page.locator('#timeline-rows')).toBeFocused();
    await expect(page.locator('#timeline-rows')).toHaveAttribute('aria-activedescendant', uuid);
    await expect(page.locator('.session')).toHaveCount(3);

    await page.keyboard.press('Shift+Control+z');
    await expect(page.getByRole('dialog', { name: 'Redo' }).getByRole('button', { name: 'Redo', exact: true })).toBeEnabled();
    await page.keyboard.press('Enter');
    await expect(result).toContainText(/fork/i);
    await expect(page.locator('.session')).toHaveCount(4);
  });

  for (const scheme of SCHEMES) {
    test(`the palette holds every command, one header per group (${scheme})`, async ({ page }) => {
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      await page.locator('.session[data-project$="linear"]').click();
      await page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' }).click();
      await page.keyboard.press('Control+k');
      const pal = page.getByRole('dialog', { name: 'Command palette' });
      await expect(pal).toBeVisible();
      for (const words of ['History', 'Undo the last action', 'Redo the last undone action', 'Compare with', 'Export branch (.md)', 'Export session (.html)', 'Legend', 'Set up checkpoints', 'Add a remote host']) {
        await page.getByRole('combobox').fill(words.toLowerCase().slice(0, 12));
        await expect(pal.getByRole('option').filter({ hasText: words }).first(), words).toBeVisible();
      }
      await page.getByRole('combobox').fill('');
      const headers = await pal.locator('.wg-pal-header').allInnerTexts();
      expect(new Set(headers).size).toBe(headers.length);
      expect(headers.map((h) => h.toLowerCase())).toEqual(['actions', 'commands', 'prompts', 'sessions']);
      // A row does not repeat its group's label.
      for (const o of await pal.getByRole('option').allInnerTexts()) expect(o).not.toMatch(/^(Actions|Commands|Prompts|Sessions)\b/);
      await expectAccessible(page, 'the palette', '.wg-palette');
      await shot(page, `palette-${scheme}`);
      await page.getByRole('combobox').fill('hist');
      await page.keyboard.press('Enter');
      await expect(page.getByRole('dialog', { name: 'History' })).toBeVisible();
    });
  }

  for (const scheme of SCHEMES) {
    test(`History: from the header with nothing selected, in words, chains folded, undo from the middle asks first (${scheme})`, async ({ page }) => {
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      await page.locator('.session[data-project$="linear"]').click();
      const rows = page.locator('.session[data-project$="linear"]');
      // A new or redone fork's row is listed before the journal names it a fork: wait for its label
      // so that "the original" below is never the fork itself.
      const fork = async (text: string, forksBefore: number) => {
        await expect(rows.and(page.locator('.is-fork'))).toHaveCount(forksBefore);
        await rows.and(page.locator(':not(.is-fork)')).first().click();
        await page.locator('.prompt-row').filter({ hasText: text }).click();
        await page.keyboard.press('f');
        await page.getByRole('dialog', { name: 'Fork here' }).getByRole('button', { name: /Fork before this prompt/ }).click();
        await expect(page.getByRole('status', { name: 'Result' })).toContainText('Fork created');
      };
      await fork('WRITE a.txt version two', 0);
      await page.keyboard.press('Control+z');
      await expect(page.getByRole('dialog', { name: 'Undo' }).getByRole('button', { name: 'Undo', exact: true })).toBeEnabled();
      await page.keyboard.press('Enter');
      await expect(page.getByRole('status', { name: 'Result' })).toContainText(/Removed fork/);
      await page.keyboard.press('Shift+Control+z');
      await expect(page.getByRole('dialog', { name: 'Redo' }).getByRole('button', { name: 'Redo', exact: true })).toBeEnabled();
      await page.keyboard.press('Enter');
      await expect(page.locator('.session')).toHaveCount(4);
      await fork('WRITE b.txt bee', 1);
      await expect(page.locator('.session')).toHaveCount(5);
      await page.getByRole('button', { name: 'Dismiss', exact: true }).click();
      // Nothing selected in the fork just opened: History is still one click (and H) away.
      await page.locator('.timeline-header').getByRole('button', { name: /History/ }).click();
      const panel = page.getByRole('dialog', { name: 'History' });
      const cards = panel.locator('.history-entry');
      // Two forks; the first one's undo and redo are folded into it.
      await expect(cards).toHaveCount(2);
      await expect(cards.nth(0).locator('strong')).toHaveText(/^Forked the chat before #5 “WRITE b\.txt bee”$/);
      await expect(cards.nth(1).locator('strong')).toHaveText(/^Forked the chat before #2 “WRITE a\.txt version two”$/);
      await expect(cards.nth(1)).toContainText('redone');
      // Ids and paths only under the disclosure.
      const visible = await cards.nth(0).evaluate((el) => [...el.childNodes].filter((n) => !(n instanceof HTMLDetailsElement)).map((n) => n.textContent).join(' '));
      expect(visible).not.toMatch(/[0-9a-f]{8}-|\/tmp\/|\.jsonl/);
      await expectAccessible(page, 'History', '.history-panel');
      await shot(page, `history-${scheme}`);
      // Undoing the older fork skips the newer one: it says what it would do first.
      await cards.nth(1).getByRole('button', { name: 'Undo…' }).click();
      const ask = page.getByRole('dialog', { name: 'Undo' });
      await expect(ask).toContainText('Forked the chat before #2');
      await expect(ask).toContainText('This will remove the fork (the original session stays as it was).');
      await expect(ask.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await shot(page, `undo-ask-${scheme}`);
      await page.keyboard.press('Escape');
      await expect(ask).toHaveCount(0);
      await expect(page.locator('.session')).toHaveCount(5);
      await cards.nth(1).getByRole('button', { name: 'Undo…' }).click();
      await ask.getByRole('button', { name: 'Undo', exact: true }).click();
      await expect(cards.nth(1)).toHaveAttribute('data-state', 'undone');
      await expect(page.locator('.session')).toHaveCount(4);
    });
  }

  test('loading: a skeleton while a session opens, "Searching…" until the answer, export with Cancel, a compact result bar with Copy all', async ({ page }) => {
    await openApp(page, s, { colorScheme: 'light', reducedMotion: 'reduce' });
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/getTimeline', async (route) => {
      await held;
      await route.continue();
    });
    await page.locator('.session[data-project$="linear"]').click();
    await expect(page.getByRole('region', { name: 'Opening the session' })).toBeVisible();
    await expect(page.locator('.sk-row')).toHaveCount(10);
    await shot(page, 'skeleton-light');
    release();
    await expect(page.locator('.prompt-row').first()).toBeVisible();
    await page.unroute('**/api/getTimeline');

    let releaseSearch: () => void = () => {};
    const searchHeld = new Promise<void>((r) => (releaseSearch = r));
    await page.route('**/api/searchPrompts', async (route) => {
      await searchHeld;
      await route.continue();
    });
    await page.locator('#session-filter').fill('zzzz nothing');
    await expect(page.locator('.wg-filter-count')).toHaveText('Searching…');
    await expect(page.getByText('No session matches.')).toHaveCount(0);
    releaseSearch();
    await expect(page.getByText('No session matches.')).toBeVisible();
    await page.locator('#session-filter').fill('');

    let releaseExport: () => void = () => {};
    const exportHeld = new Promise<void>((r) => (releaseExport = r));
    await page.route('**/api/exportSession', async (route) => {
      await exportHeld;
      await route.continue();
    });
    await page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' }).click();
    await page.getByRole('button', { name: 'Export session (.html)' }).click();
    const progress = page.getByRole('status', { name: 'Export' });
    await expect(progress).toContainText('Exporting the session as HTML…');
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByText('Export cancelled: nothing was saved.')).toBeVisible();
    releaseExport();

    // A rewrite at #2 hands back four prompts: folded under one line, with Copy all.
    await page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version two' }).click();
    await page.keyboard.press('r');
    await page.getByRole('dialog', { name: 'Rewrite here' }).getByRole('button', { name: /Rewrite: leave out/ }).click();
    const bar = page.getByRole('status', { name: 'Result' });
    await expect(bar.getByRole('button', { name: 'Copy all' })).toBeVisible();
    await expect(bar.locator('textarea')).toHaveCount(4);
    expect((await bar.boundingBox())!.height).toBeLessThan(120);
    await shot(page, 'result-compact-light');
  });

  for (const scheme of SCHEMES) {
    test(`responsive: an action strip below 960 px, the timeline gets the room first at 1024 and 1280 (${scheme})`, async ({ page }) => {
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      for (const width of WIDTHS) {
        await resize(page, width);
        await pickSession(page, '.session[data-project$="linear"]');
        await page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' }).click();
        if (width < 960) {
          // The details drawer opened on the click: closed, the strip stays with the selection.
          await page.keyboard.press('Escape');
          const strip = page.getByRole('group', { name: 'Selected prompt #5' });
          await expect(strip).toBeVisible();
          await expect(strip.getByRole('button', { name: 'Fork', exact: true })).toBeEnabled();
          await expect(strip.getByRole('button', { name: 'Details ▸' })).toBeVisible();
          await expectAccessible(page, `the strip at ${width}`, '.action-strip');
        } else {
          await expect(page.locator('.action-strip')).toHaveCount(0);
          const t = (await page.locator('.timeline').boundingBox())!;
          const d = (await page.locator('.detail-slot').boundingBox())!;
          expect(t.width, `${width} px: timeline ${t.width} vs details ${d.width}`).toBeGreaterThan(d.width);
        }
        await shot(page, `layout-${width}-${scheme}`);
      }
    });
  }

  test('at 640 px one Esc closes the Sessions drawer', async ({ page }) => {
    await page.setViewportSize({ width: 640, height: 480 });
    await openApp(page, s, { colorScheme: 'light', reducedMotion: 'reduce' });
    await page.getByRole('button', { name: /Sessions/ }).click();
    await expect(page.locator('#session-filter')).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(page.locator('.sidebar')).toBeHidden();
  });
});
