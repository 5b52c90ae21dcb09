import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { generatePrompts } from '../bench/generate-transcript.js';
import { replayLinear } from './replay.js';
import { openApp, removeTempDirs, ROOT, serve, tempDir, transcriptOf, type Served } from './server.js';

/**
 * The rest of the second review (issue 39): revert conflicts three ways, Compare's words, custom
 * slash commands as prompts, an export that Cancel really stops, keyboard Undo/Redo previewed, the
 * first checkpoint in progress, and the first screen's script budget. Light and dark, at 860, 1024
 * and 1280 px where it is drawn.
 */
test.afterAll(removeTempDirs);

const SHOTS = join(ROOT, 'test-results', 'screenshots');
const WIDTHS = [860, 1024, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;
const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `finish-${name}.png`) });

async function expectAccessible(page: Page, what: string, include: string) {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).include(include).analyze();
  expect(
    r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`)),
    `axe on ${what}`,
  ).toEqual([]);
}

async function resize(page: Page, width: number) {
  await page.setViewportSize({ width, height: 760 });
  await expect(page.locator('.app')).toHaveClass(width <= 1000 ? /\bnarrow\b/ : /^(?!.*\bnarrow\b)/);
}

/** Picks a session (through the Sessions drawer in a narrow window) and a prompt of it; the details drawer is closed again. */
async function pick(page: Page, session: string, prompt: string) {
  const row = page.locator(session).first();
  if (!(await row.isVisible())) await page.getByRole('button', { name: /Sessions/ }).click();
  await row.click();
  await page.locator('.prompt-row').filter({ hasText: prompt }).first().click();
  if (await page.locator('.app.narrow.details-open').count()) await page.keyboard.press('Escape');
}

/** Opens a prompt's action from its details (the drawer in a narrow window). */
async function detailsButton(page: Page, name: string | RegExp) {
  if (await page.locator('.app.narrow').count()) await page.getByRole('button', { name: 'Details ▸' }).first().click();
  return page.locator('.detail').getByRole('button', { name });
}

test('the first screen fetches at most 337 kB of script (index.html and what it preloads)', async () => {
  const html = await readFile(join(ROOT, 'out', 'renderer', 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  expect(files.length).toBeGreaterThan(0);
  let bytes = 0;
  for (const f of files) bytes += (await stat(join(ROOT, 'out', 'renderer', f))).size;
  expect(bytes / 1000, files.join(', ')).toBeLessThan(337);
  // What the first screen does not draw is not in it.
  const entry = await readFile(join(ROOT, 'out', 'renderer', files[0]!), 'utf8');
  for (const words of ['Install hooks for', 'Compare two prompts', 'Export cancelled', 'Add a remote host', 'Copy all']) expect(entry, words).not.toContain(words);
});

test.describe('on the bundled sessions', () => {
  let s: Served;
  test.beforeEach(async () => {
    s = await serve();
  });
  test.afterEach(async () => {
    await s.stop();
  });

  for (const scheme of SCHEMES) {
    test(`revert conflicts three ways: before #2, as #2 left it, now, at 860, 1024 and 1280 px (${scheme})`, async ({ page }) => {
      await replayLinear(s, join(s.projectsDir, 'linear'));
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      for (const width of WIDTHS) {
        await resize(page, width);
        await pick(page, '.session[data-project$="linear"]', 'WRITE a.txt version two');
        await (await detailsButton(page, "Revert this prompt's changes")).click();
        const sheet = page.getByRole('dialog', { name: "Revert this prompt's changes" });
        const view = sheet.getByRole('group', { name: 'shared.ts: before #2, as #2 left it, and now' });
        await expect(view).toBeVisible();
        const sides = ['Before #2', 'As #2 left it', 'Now'].map((n) => view.getByRole('region', { name: n }));
        await expect(sides[0]!.locator('.tw-n .tw-text')).toHaveText('shared line 21');
        await expect(sides[1]!.locator('.tw-both .tw-text')).toHaveText('shared line 21 by #2');
        await expect(sides[2]!.locator('.tw-later .tw-text')).toHaveText('shared line 21 by #4');
        // Only the overlap and two lines of each file around it: the other 37 lines are folded.
        await expect(view.locator('.tw-fold')).toHaveText(['⋯ 18 lines that revert cleanly or did not change', '⋯ 17 lines that revert cleanly or did not change']);
        await expect(view.locator('.tw-row')).toHaveCount(4);
        await expect(sheet).not.toContainText(/\d{8}T\d{9}Z|Nothing to revert|CONFLICT/);
        await shot(page, `revert-three-way-${width}-${scheme}`);
        // Side by side (the sheet has the room from 860 px; below 620 px of sheet they stack); never wider than the sheet.
        const boxes = await Promise.all(sides.map(async (x) => (await x.boundingBox())!));
        const sideBySide = boxes[1]!.x > boxes[0]!.x + 10;
        expect(sideBySide, `${width} px`).toBe(true);
        const fits = await view.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
        expect(fits, `${width} px: no sideways scroll`).toBe(true);
        await expectAccessible(page, `the revert sheet at ${width}`, '.sheet');
        await page.keyboard.press('Escape');
        await expect(sheet).toHaveCount(0);
      }
    });
  }

  for (const scheme of SCHEMES) {
    test(`compare: an ancestor and its descendant said as such, branches as branches, at 860, 1024 and 1280 px (${scheme})`, async ({ page }) => {
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      for (const width of WIDTHS) {
        await resize(page, width);
        await pick(page, '.session[data-project$="branched"]', 'WRITE e.txt after branch');
        await (await detailsButton(page, 'Compare with…')).click();
        if (await page.locator('.app.narrow.details-open').count()) await page.keyboard.press('Escape');
        await page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version one' }).click();
        if (await page.locator('.app.narrow.details-open').count()) await page.keyboard.press('Escape');
        await page.getByRole('status', { name: 'Compare' }).getByRole('button', { name: /Compare with #1/ }).click();
        const sheet = page.getByRole('dialog', { name: 'Compare two prompts' });
        const relation = sheet.getByRole('note', { name: 'How they are related' });
        await expect(relation).toHaveText('#1 “WRITE a.txt version one” comes before #4 “WRITE e.txt after branch” on the same line: #4 is 3 prompts further on.');
        await expect(sheet).not.toContainText(/0 prompts|B: |A: /);
        await expect(sheet.getByRole('region', { name: 'What #4 adds' }).locator('li')).toHaveText([/#2\s+WRITE a\.txt version two/, /#3\s+WRITE d\.txt branch two/, /#4\s+WRITE e\.txt after branch/]);
        // The code reads from the earlier to the later, whichever was picked first.
        await expect(sheet.getByRole('region', { name: 'Code' })).toContainText('3 files differ, from #1 to #4');
        // The explanation is one paragraph across the sheet, not a narrow column.
        const rel = (await relation.boundingBox())!;
        const body = (await sheet.locator('.sheet-body').boundingBox())!;
        expect(rel.width, `${width} px`).toBeGreaterThan(Math.min(body.width - 60, 500));
        await shot(page, `compare-ancestor-${width}-${scheme}`);
        await expectAccessible(page, `compare at ${width}`, '.compare-sheet');
        await page.keyboard.press('Escape');
        await expect(sheet).toHaveCount(0);
      }
    });
  }

  for (const scheme of SCHEMES) {
    test(`a custom slash command is a prompt: counted alike in the list and the timeline, selectable, and a fork is made before it (${scheme})`, async ({ page }) => {
      const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
      const text = await readFile(transcript, 'utf8');
      const leaf = /"lastPrompt":"WRITE b\.txt bee","leafUuid":"([^"]+)"/.exec(text)![1]!;
      const base = { isSidechain: false, userType: 'external', cwd: join(s.projectsDir, 'linear'), sessionId: '2ea8980a-26fe-4928-aab5-4ebf6074b664', version: '2.1.330' };
      const [u1, u2, u3] = ['c0ffee00-0000-4000-8000-000000000001', 'c0ffee00-0000-4000-8000-000000000002', 'c0ffee00-0000-4000-8000-000000000003'];
      const at = (s: number) => new Date(Date.parse('2026-11-22T04:38:10Z') + s * 1000).toISOString();
      // As Claude Code writes a custom command (.claude/commands/review-notes.md): the typed line, its expansion (isMeta), the reply.
      await appendFile(
        transcript,
        [
          { ...base, type: 'user', parentUuid: leaf, uuid: u1, timestamp: at(0), message: { role: 'user', content: '<command-message>review-notes is running…</command-message>\n<command-name>/review-notes</command-name>\n<command-args>focus on the tests</command-args>' } },
          { ...base, type: 'user', parentUuid: u1, uuid: u2, isMeta: true, timestamp: at(0), message: { role: 'user', content: [{ type: 'text', text: 'Read notes.md and list what it says about tests.\n\nARGUMENTS: focus on the tests' }] } },
          { ...base, type: 'assistant', parentUuid: u2, uuid: u3, timestamp: at(2), message: { id: 'msg_review', role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'text', text: 'notes.md says nothing about tests yet.' }], usage: { input_tokens: 40, output_tokens: 12 } } },
          { type: 'last-prompt', lastPrompt: '/review-notes focus on the tests', leafUuid: u3, sessionId: base.sessionId },
        ]
          .map((l) => JSON.stringify(l))
          .join('\n') + '\n',
      );
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      const session = page.locator('.session[data-project$="linear"]');
      await expect(session.locator('.session-meta').first()).toContainText('6 prompts');
      await session.click();
      await expect(page.locator('.wg-counts')).toHaveText(/^6 prompts on the live path/);
      const row = page.locator('.prompt-row').filter({ hasText: '/review-notes focus on the tests' });
      await expect(row).toHaveCount(1);
      await row.click();
      await expect(page.locator('.detail .detail-prompt')).toHaveText('/review-notes focus on the tests');
      await expect(page.locator('.detail')).toContainText('#6');
      // Its turn is the model's answer to it (not the expansion, which is the command's own text).
      await expect(page.locator('.detail .turn')).toContainText('notes.md says nothing about tests yet.');
      await page.keyboard.press('f');
      const sheet = page.getByRole('dialog', { name: 'Fork here' });
      await expect(sheet.locator('#sheet-statement')).toContainText('#5');
      await expectAccessible(page, 'the fork preview of a custom command', '.sheet');
      await shot(page, `custom-command-fork-${scheme}`);
      await sheet.getByRole('button', { name: /Fork before this prompt/ }).click();
      const result = page.getByRole('status', { name: 'Result' });
      await expect(result).toContainText('Fork created');
      await expect(result).toContainText('/review-notes focus on the tests');
      // The fork holds the five prompts before the command.
      await expect(page.locator('.wg-counts')).toHaveText(/^5 prompts on the live path/);
    });
  }

  for (const scheme of SCHEMES) {
    test(`Ctrl+Z and Shift+Ctrl+Z show what they would do first (Cancel focused, Enter confirms), then the focus is on the row (${scheme})`, async ({ page }) => {
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      await page.locator('.session[data-project$="linear"]').click();
      const row = page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' });
      await row.click();
      const uuid = (await row.getAttribute('id'))!;
      await page.keyboard.press('f');
      await page.getByRole('dialog', { name: 'Fork here' }).getByRole('button', { name: /Fork before this prompt/ }).click();
      await expect(page.locator('.session')).toHaveCount(4);
      await page.keyboard.press('Control+z');
      const ask = page.getByRole('dialog', { name: 'Undo' });
      await expect(ask).toContainText('Forked the chat before #5 “WRITE b.txt bee”');
      await expect(ask).toContainText('This will remove the fork (the original session stays as it was).');
      await expect(ask.getByRole('button', { name: 'Cancel' })).toBeFocused();
      // Nothing happened yet.
      await expect(page.locator('.session')).toHaveCount(4);
      await expectAccessible(page, 'the undo dialog', '.undo-dialog');
      await shot(page, `undo-keyboard-${scheme}`);
      // Esc: nothing done; again, then Enter: undone, the focus on the row it started from.
      await page.keyboard.press('Escape');
      await expect(ask).toHaveCount(0);
      await expect(page.locator('.session')).toHaveCount(4);
      await page.keyboard.press('Control+z');
      await expect(ask.getByRole('button', { name: 'Undo', exact: true })).toBeEnabled();
      await page.keyboard.press('Enter');
      await expect(ask).toHaveCount(0);
      await expect(page.getByRole('status', { name: 'Result' })).toContainText(/Removed fork/);
      await expect(page.locator('.session')).toHaveCount(3);
      await expect(page.locator('#timeline-rows')).toBeFocused();
      await expect(page.locator('#timeline-rows')).toHaveAttribute('aria-activedescendant', uuid);
      await page.keyboard.press('Shift+Control+z');
      const redo = page.getByRole('dialog', { name: 'Redo' });
      await expect(redo).toContainText('Forked the chat before #5 “WRITE b.txt bee”');
      await expect(redo.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await expect(redo.getByRole('button', { name: 'Redo', exact: true })).toBeEnabled();
      await page.keyboard.press('Enter');
      await expect(redo).toHaveCount(0);
      await expect(page.locator('.session')).toHaveCount(4);
    });
  }

  for (const scheme of SCHEMES) {
    test(`first checkpoint in progress: ◈ on its prompt, and the restore preview says what it cannot do yet, then makes itself again (${scheme})`, async ({ page }) => {
      const project = join(s.projectsDir, 'linear');
      const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
      const first = /"content":"WRITE a\.txt version one"\},"uuid":"([^"]+)"/.exec(await readFile(transcript, 'utf8'))![1]!;
      // The queue the hook leaves for the detached child that reads the first checkpoint
      // (engine/store/background-checkpoint.ts); this test's process stands for the child.
      await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
      const job = { id: '20261122T043751000Z-abcdef', time: Date.now() - 12_000, trigger: 'prompt', transcript: { transcript_path: transcript, session_id: null, agent: 'claude', prompt_uuid: first, prompt_id: null, byte_offset_end: 0, prefix_sha256: '' }, touched: [], pre: {}, uncovered: false };
      await writeFile(join(project, '.agent', 'rewind', 'background.json'), JSON.stringify({ pid: process.pid, started: Date.now() - 12_000, jobs: [job, { ...job, id: '20261122T043752000Z-abcdef', transcript: { ...job.transcript, prompt_uuid: 'later' } }] }));
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      for (const width of WIDTHS) {
        await resize(page, width);
        await pick(page, '.session[data-project$="linear"]', 'WRITE a.txt version one');
        const mark = page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version one' }).getByLabel('Rewind checkpoint in progress');
        await expect(mark).toHaveText('◈');
        await expect(mark).toHaveAttribute('title', /first checkpoint of this project is still being read in the background \(started \d+ s ago; 1 later prompt's checkpoint waits behind it\)/);
        if (width >= 1024) await expect(page.locator('.detail').getByRole('button', { name: "Revert this prompt's changes" })).toBeDisabled();
        await shot(page, `first-checkpoint-row-${width}-${scheme}`);
        await page.keyboard.press('c');
        const sheet = page.getByRole('dialog', { name: 'Restore code to here' });
        const note = sheet.getByRole('note', { name: 'First checkpoint in progress' });
        await expect(note).toContainText('the code cannot be restored to #1 yet: nothing is changed now');
        await expect(sheet.getByRole('alert')).toHaveCount(0);
        await expect(sheet.locator('.sheet-footer .button.primary')).toBeDisabled();
        await expectAccessible(page, `the restore preview at ${width}`, '.sheet');
        await shot(page, `first-checkpoint-${width}-${scheme}`);
        if (width !== 1280) {
          await page.keyboard.press('Escape');
          await expect(sheet).toHaveCount(0);
        }
      }
      // The child is done (here without a checkpoint): the mark goes, and the open preview is made again.
      await rm(join(project, '.agent', 'rewind', 'background.json'));
      await expect(page.getByLabel('Rewind checkpoint in progress')).toHaveCount(0);
      await expect(page.getByRole('dialog', { name: 'Restore code to here' }).getByRole('note', { name: 'First checkpoint in progress' })).toHaveCount(0);
    });
  }
});

test.describe('a 3,000-prompt session', () => {
  let s: Served;
  test.beforeEach(async () => {
    const root = await tempDir('rewind-e2e-export-');
    const dir = join(root, 'projects', '-home-dev-big');
    await mkdir(dir, { recursive: true });
    await generatePrompts(join(dir, '00000000-0000-4000-8000-00000000e3b0.jsonl'), 3000, { sessionId: '00000000-0000-4000-8000-00000000e3b0', cwd: '/home/dev/big' });
    s = await serve({ claudeRoot: root });
  });
  test.afterEach(async () => {
    await s.stop();
  });

  for (const scheme of SCHEMES) {
    test(`export: the service's own count of turns read, and Cancel stops the export there (${scheme})`, async ({ page }) => {
      await openApp(page, s, { colorScheme: scheme, reducedMotion: 'reduce' });
      await page.locator('.session').first().click();
      await page.locator('.prompt-row').last().click();
      const exported = page.waitForResponse('**/api/exportSession', { timeout: 120_000 });
      await page.getByRole('button', { name: 'Export session (.html)' }).click();
      const progress = page.getByRole('status', { name: 'Export' });
      await expect(progress).toContainText(/Read [\d,]+ of 3,000 turns/, { timeout: 60_000 });
      await expect(progress.getByRole('progressbar', { name: 'Turns read' })).toBeVisible();
      await expectAccessible(page, 'the export progress', '.export-progress');
      await shot(page, `export-progress-${scheme}`);
      const cancelled = page.waitForResponse('**/api/cancelExport');
      await progress.getByRole('button', { name: 'Cancel' }).click();
      await expect(page.getByText('Export cancelled: nothing was saved.')).toBeVisible();
      // The service stopped the export itself: it was still running, and it answered CANCELLED.
      expect(await (await cancelled).json()).toEqual({ ok: true, value: { cancelled: true } });
      expect(await (await exported).json()).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    });
  }
});
