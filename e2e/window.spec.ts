import { expect, test, type Page } from '@playwright/test';
import { openApp, serve, type Served } from './server.js';

// The window's rough edges (issue 25): layout, scroll and keyboard, seen in Chromium.
let s: Served;

test.beforeEach(async () => {
  s = await serve();
});
test.afterEach(async () => {
  await s.stop();
});

/** Every button of `group` lies inside `pane` and shows its whole label. */
async function expectButtonsInside(page: Page, pane: string, group: string) {
  const box = (await page.locator(pane).boundingBox())!;
  const buttons = page.locator(`${pane} ${group} button`);
  const n = await buttons.count();
  expect(n).toBeGreaterThan(0);
  for (let i = 0; i < n; i++) {
    const b = buttons.nth(i);
    const bb = (await b.boundingBox())!;
    const label = await b.innerText();
    expect(bb.x, `${label}: left edge`).toBeGreaterThanOrEqual(box.x);
    expect(bb.x + bb.width, `${label}: right edge`).toBeLessThanOrEqual(box.x + box.width + 0.5);
    const { scroll, client } = await b.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(scroll, `${label}: clipped`).toBeLessThanOrEqual(client);
  }
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the details pane's action buttons fit at 1280 px (${colorScheme})`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openApp(page, s, { colorScheme });
    await page.locator('.session[data-project$="linear"]').click();
    await page.locator('.prompt-row').filter({ hasText: 'EDIT notes.md alpha gamma' }).click();
    await expect(page.getByRole('button', { name: /Fork \+ restore code/ })).toBeVisible();
    await expectButtonsInside(page, '.detail', '.actions');
    await expectButtonsInside(page, '.detail', '.insight-actions');
    // The pane itself does not scroll sideways.
    const pane = await page.locator('.detail').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(pane.scroll).toBeLessThanOrEqual(pane.client);
  });
}
