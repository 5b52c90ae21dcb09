import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { CLI, openApp, removeTempDirs, serve, tempDir, type Served } from './server.js';

test.afterAll(removeTempDirs);

/**
 * How the window looks: WCAG AA (axe-core) on every main view in light and dark, role colours that
 * survive hover/active/focus, no overlap at 200% zoom and 900x700, and the screenshots of each view.
 */
const SHOTS = join(import.meta.dirname, '..', 'test-results', 'screenshots');
type Scheme = 'light' | 'dark';
let s: Served;

test.beforeEach(async () => {
  s = await serve();
});
test.afterEach(async () => {
  await s.stop();
});

async function open(page: Page, scheme: Scheme) {
  await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
}

/** Every WCAG 2.x A/AA rule axe knows, colour contrast (4.5:1 for text and badges) included. */
async function expectAccessible(page: Page, view: string) {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const found = r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} ${n.failureSummary?.split('\n')[1]?.trim() ?? ''}`));
  expect(found, `axe on ${view}`).toEqual([]);
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

async function pickSession(page: Page, project: string) {
  const row = page.locator(`.session[data-project$="${project}"]`);
  if (!(await row.isVisible())) await page.getByRole('button', { name: /Sessions/ }).click();
  await row.click();
}

/** A checkpoint of the project, then a hand edit: the restore preview has a conflict and a diff. */
function checkpointThenEdit(project: string) {
  execFileSync(process.execPath, [CLI, 'checkpoint', '--project', project], { env: { ...s.env, REWIND_NO_FORWARD: '1' } });
  return writeFile(join(project, 'a.txt'), 'edited by hand\n');
}

/** The palette (Ctrl/Cmd-K) where the window has one. */
async function palette(page: Page): Promise<boolean> {
  await page.keyboard.press('Control+k');
  const dialog = page.getByRole('dialog', { name: /palette|command/i });
  return dialog.isVisible({ timeout: 1000 }).catch(() => false);
}

for (const scheme of ['light', 'dark'] as const) {
  test(`every main view passes WCAG AA in ${scheme}`, async ({ page }) => {
    await checkpointThenEdit(join(s.projectsDir, 'linear'));
    await open(page, scheme);
    await pickSession(page, 'branched');
    await expect(page.locator('.prompt-row.dead')).toHaveCount(2);
    await expectAccessible(page, 'timeline');
    await shot(page, `timeline-${scheme}`);

    // Details with a tool call open, and the legend.
    await page.locator('.prompt-row').first().click();
    await page.locator('.item-head').first().click();
    await page.getByText('Legend').click();
    await expect(page.locator('.legend-panel')).toBeVisible();
    await expectAccessible(page, 'details and legend');
    await shot(page, `details-${scheme}`);
    await page.keyboard.press('Escape');
    await expect(page.locator('.legend-panel')).toBeHidden();

    // Restore preview: a conflict, badges, a diff.
    await pickSession(page, 'linear');
    await page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version two' }).click();
    await page.getByRole('button', { name: 'Restore code to here' }).click();
    const sheet = page.getByRole('dialog');
    await expect(sheet.getByRole('alert')).toBeVisible();
    await sheet.locator('.file').filter({ hasText: 'a.txt' }).click();
    await expectAccessible(page, 'preview sheet');
    await shot(page, `preview-${scheme}`);
    await page.keyboard.press('Escape');

    // Result bar after a fork.
    await page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' }).click();
    await page.getByRole('button', { name: 'Fork here' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /Fork before this prompt/ }).click();
    await expect(page.getByRole('status', { name: 'Result' })).toContainText(/Fork created/);
    await expectAccessible(page, 'result bar');
    await shot(page, `result-${scheme}`);

    if (await palette(page)) {
      await expectAccessible(page, 'palette');
      await shot(page, `palette-${scheme}`);
    }
  });

  test(`the empty state passes WCAG AA in ${scheme}, and says an existing empty folder is empty`, async ({ page }) => {
    await s.stop();
    s = await serve({ claudeRoot: await tempDir('rewind-e2e-empty-claude-') });
    await open(page, scheme);
    await expect(page.locator('.empty-card')).toContainText('which is an empty folder');
    await expect(page.locator('.empty-card')).not.toContainText('does not exist');
    await expectAccessible(page, 'empty state');
    await shot(page, `empty-${scheme}`);
  });
}

test('the empty state says a folder does not exist only when it does not', async ({ page }) => {
  await s.stop();
  s = await serve({ empty: true });
  await open(page, 'light');
  await expect(page.locator('.empty-card')).toContainText('which does not exist');
});

/** Background and text colour of an element, and their contrast ratio (opaque colours). */
async function colours(page: Page, selector: string) {
  return page.locator(selector).first().evaluate((el) => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const lum = (c: number[]) =>
      c.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i]!, 0);
    const cs = getComputedStyle(el);
    const [a, b] = [lum(rgb(cs.backgroundColor)), lum(rgb(cs.color))].sort((x, y) => y - x);
    return { bg: rgb(cs.backgroundColor), fg: rgb(cs.color), ratio: (a! + 0.05) / (b! + 0.05) };
  });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`primary and destructive buttons keep their colour and contrast on hover, press and focus (${scheme})`, async ({ page }) => {
    await open(page, scheme);
    await pickSession(page, 'linear');
    await page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' }).click();
    const fork = page.getByRole('button', { name: 'Fork here' });
    const rest = await colours(page, '.actions .button.primary');
    await fork.hover();
    const hover = await colours(page, '.actions .button.primary');
    expect(hover.bg, 'hover changes the shade').not.toEqual(rest.bg);
    // Still blue: blue is the largest channel, and the label readable.
    expect(hover.bg[2]!).toBeGreaterThan(hover.bg[0]! + 40);
    expect(hover.ratio).toBeGreaterThanOrEqual(4.5);
    await page.mouse.down();
    const active = await colours(page, '.actions .button.primary');
    expect(active.bg[2]!).toBeGreaterThan(active.bg[0]! + 40);
    expect(active.ratio).toBeGreaterThanOrEqual(4.5);
    await page.mouse.move(5, 5);
    await page.mouse.up();

    await page.getByRole('button', { name: 'Rewrite here' }).click();
    const confirm = page.getByRole('dialog').getByRole('button', { name: /Rewrite: leave out/ });
    await expect(confirm).toHaveClass(/danger/);
    // The sheet opens on Cancel (Enter must not rewrite by accident); the confirm is focused on purpose here.
    await expect(page.getByRole('dialog').getByRole('button', { name: 'Cancel' })).toBeFocused();
    await confirm.focus();
    for (const state of ['focus', 'hover', 'active'] as const) {
      if (state === 'hover') await confirm.hover();
      if (state === 'active') await page.mouse.down();
      const c = await colours(page, '.sheet-footer .button.danger');
      // Red: red is the largest channel by far, in every state and theme.
      expect(c.bg[0]!, `${state}: red`).toBeGreaterThan(c.bg[1]! + 80);
      expect(c.ratio, `${state}: readable`).toBeGreaterThanOrEqual(4.5);
    }
    // Let go elsewhere in the sheet: no click, nothing is rewritten.
    const head = (await page.locator('.sheet-header').boundingBox())!;
    await page.mouse.move(head.x + 10, head.y + 10);
    await page.mouse.up();
    await expect(confirm).toBeVisible();
    // The sheet's edge shows against the page behind it.
    const edge = await page.locator('.sheet').evaluate((el) => getComputedStyle(el).borderLeftWidth);
    expect(parseFloat(edge)).toBeGreaterThanOrEqual(1);
  });
}

/** Pairs of visible, non-nested elements whose boxes overlap (text boxes for text, not the block around it). */
async function overlaps(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const sel = 'button, summary, input, h1, .stats > span, .banner-text, .num, .prompt-text, .prompt-meta, .markers, .topbar-title, .command-chip, .compaction, .result-bar';
    const boxes: { el: Element; r: DOMRect; name: string }[] = [];
    for (const el of document.querySelectorAll(sel)) {
      const cs = getComputedStyle(el);
      if (cs.visibility === 'hidden' || cs.display === 'none') continue;
      let r = el.getBoundingClientRect();
      if (el.matches('h1, .topbar-title, .prompt-text, .banner-text')) {
        const range = document.createRange();
        range.selectNodeContents(el);
        const t = range.getBoundingClientRect();
        r = new DOMRect(t.x, t.y, Math.min(t.width, r.right - t.x), t.height);
      }
      // Only the part inside its scrolling container is on screen.
      const clip = el.closest('.rows, .session-groups, .detail')?.getBoundingClientRect();
      if (clip) {
        const top = Math.max(r.top, clip.top);
        const bottom = Math.min(r.bottom, clip.bottom);
        r = new DOMRect(r.x, top, r.width, Math.max(0, bottom - top));
      }
      if (r.width < 1 || r.height < 1 || r.bottom <= 0 || r.right <= 0 || r.top >= innerHeight || r.left >= innerWidth) continue;
      boxes.push({ el, r, name: `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 24)}"` });
    }
    const out: string[] = [];
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i]!, boxes[j]!];
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (w > 1 && h > 1) out.push(`${a.name} x ${b.name}`);
      }
    return out;
  });
}

for (const size of [
  { name: 'zoom200', width: 640, height: 400 },
  { name: '900x700', width: 900, height: 700 },
]) {
  test(`${size.name}: nothing overlaps; the sidebar is a toggle, the details a drawer`, async ({ page }) => {
    // 200% zoom of a 1280x800 window is a 640x400 CSS viewport.
    await page.setViewportSize({ width: size.width, height: size.height });
    await open(page, 'light');
    await expect(page.locator('.sidebar')).toBeHidden();
    await expect(page.locator('.topbar-title')).toHaveText(/\S/);
    // Text in every visible row, on screen.
    const rows = page.locator('.prompt-row');
    await expect(rows.first()).toBeVisible();
    expect(await overlaps(page)).toEqual([]);

    await page.getByRole('button', { name: /Sessions/ }).click();
    await expect(page.locator('.sidebar')).toBeVisible();
    await expect(page.getByLabel('Filter sessions and prompts')).toBeFocused();
    await expectAccessible(page, `sessions drawer at ${size.name}`);
    const side = await page.locator('.sidebar').boundingBox();
    expect(side!.x + side!.width).toBeLessThanOrEqual(size.width);
    await pickSession(page, 'linear');
    await expect(page.locator('.sidebar')).toBeHidden();
    expect(await overlaps(page)).toEqual([]);
    await shot(page, `timeline-${size.name}`);

    await rows.filter({ hasText: 'WRITE b.txt bee' }).click();
    const drawer = page.getByRole('dialog', { name: 'Prompt details' });
    await expect(drawer).toBeVisible();
    const box = await drawer.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
    for (const name of ['Fork here', 'Rewrite here', 'Restore code to here', 'Fork + restore code']) {
      const b = drawer.getByRole('button', { name });
      await b.scrollIntoViewIfNeeded();
      await expect(b).toBeVisible();
    }
    await expectAccessible(page, `details drawer at ${size.name}`);
    await shot(page, `details-${size.name}`);
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();

    await rows.filter({ hasText: 'WRITE b.txt bee' }).click();
    await drawer.getByRole('button', { name: 'Fork here' }).click();
    await expect(page.getByRole('dialog', { name: 'Fork here' })).toContainText('The new session will end after');
    await shot(page, `preview-${size.name}`);
    await page.getByRole('dialog', { name: 'Fork here' }).getByRole('button', { name: /Fork before this prompt/ }).click();
    await expect(page.getByRole('status', { name: 'Result' })).toContainText(/Fork created/);
    await page.keyboard.press('Escape');
    expect(await overlaps(page)).toEqual([]);
    await shot(page, `result-${size.name}`);
  });
}

test('the hooks notice: one line with an icon, dismissed per project and remembered', async ({ page }) => {
  await open(page, 'light');
  await pickSession(page, 'linear');
  const note = page.getByRole('note', { name: 'Checkpoints' });
  await expect(note).toContainText('Rewind checkpoints are off');
  expect((await note.boundingBox())!.height).toBeLessThan(44);
  await note.getByRole('button', { name: 'Dismiss for this project' }).click();
  await expect(note).toHaveCount(0);
  await page.reload();
  await expect(page.locator('.app[data-ready="true"]')).toBeVisible();
  await pickSession(page, 'linear');
  await expect(page.locator('.prompt-row').first()).toBeVisible();
  await expect(note).toHaveCount(0);
  // Another project still says it.
  await pickSession(page, 'branched');
  await expect(note).toBeVisible();
});

test('sidebar: titles ellipsize, a fork is labelled as one and can be renamed; times are relative with the date on hover', async ({ page }) => {
  await open(page, 'light');
  await pickSession(page, 'linear');
  const original = (await page.locator('.session.selected .session-title-text').textContent())!;
  const title = page.locator('.session-title-text').first();
  expect(await title.evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
  await page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' }).click();
  await page.getByRole('button', { name: 'Fork here' }).click();
  await page.getByRole('dialog').getByRole('button', { name: /Fork before this prompt/ }).click();
  await expect(page.locator('.session.selected')).toContainText(`↳ fork at #5 of ${original}`);

  await page.locator('.session-row').filter({ has: page.locator('.session.selected') }).hover();
  await page.getByRole('button', { name: `Rename ↳ fork at #5 of ${original}` }).click();
  await page.getByRole('textbox', { name: /Session name/ }).fill('try without the notes');
  await page.keyboard.press('Enter');
  await expect(page.locator('.session.selected .session-title-text')).toHaveText('try without the notes');
  await page.reload();
  await expect(page.locator('.session-title-text').filter({ hasText: 'try without the notes' })).toHaveCount(1);

  const time = page.locator('.session-meta time').first();
  await expect(time).toHaveText(/ago|just now/);
  expect(await time.getAttribute('title')).toMatch(/\d{4}/);
  await expect(page.locator('.prompt-meta time').first()).toHaveAttribute('title', /\d{4}/);
});
