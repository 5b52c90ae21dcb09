import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { CLI, openApp, serve, transcriptOf, type Served } from './server.js';

const SHOTS = join(import.meta.dirname, '..', 'test-results', 'screenshots');
let s: Served;

test.beforeEach(async () => {
  s = await serve();
});
test.afterEach(async () => {
  await s.stop();
});

async function open(page: Page, session: string) {
  await openApp(page, s);
  await page.locator(`.session[data-project$="${session}"]`).click();
}

const APP_BEFORE = `${[
  "import { readFile } from 'node:fs/promises';",
  '',
  '/* Loads the settings',
  '   from disk. */',
  'export async function load(path: string) {',
  "  return JSON.parse(await readFile(path, 'utf8'));",
  '}',
  ...Array.from({ length: 30 }, (_, i) => `export const v${i} = ${i};`),
  'export function save() {',
  "  return 'saved';",
  '}',
].join('\n')}\n`;

test('a restore preview: every file listed with A/M/D and +/- counts, all hunks stacked and highlighted, side by side, binary and large files summarized', async ({ page }) => {
  const project = join(s.projectsDir, 'linear');
  const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
  const lines = (await readFile(transcript, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { type?: string; promptId?: string; message?: { content?: unknown } });
  const last = lines.find((l) => l.type === 'user' && l.message?.content === 'WRITE b.txt bee')!;
  // That prompt is sent now (a checkpoint counts as "before this prompt" only near the prompt's own time).
  const from = lines.indexOf(last);
  const now = new Date().toISOString();
  await writeFile(transcript, lines.map((l, i) => `${JSON.stringify(i >= from && 'timestamp' in l ? { ...l, timestamp: now } : l)}\n`).join(''));
  // The project as it was before the last prompt, checkpointed by our hook as Claude Code would call it.
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'src', 'app.ts'), APP_BEFORE);
  await writeFile(join(project, 'src', 'util.ts'), 'export const one = 1;\n');
  await writeFile(join(project, 'logo.png'), Buffer.concat([Buffer.from('89504e470d0a1a0a0000', 'hex'), Buffer.alloc(12 * 1024, 1)]));
  execFileSync(process.execPath, [CLI, 'hook'], {
    env: { ...s.env, REWIND_NO_FORWARD: '1' },
    input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: project, transcript_path: transcript, session_id: '2ea8980a-26fe-4928-aab5-4ebf6074b664', prompt_id: last.promptId }),
  });
  // A project's first checkpoint is taken in the background (the prompt goes on at once): the
  // agent's work below comes after it is complete, as the agent's own tool hooks would make sure.
  await expect.poll(() => (JSON.parse(execFileSync(process.execPath, [CLI, 'checkpoints', '--json'], { cwd: project, env: { ...s.env, REWIND_NO_FORWARD: '1' }, encoding: 'utf8' })) as { checkpoints: unknown[]; inProgress: string | null }), { timeout: 60_000 }).toMatchObject({ inProgress: null, checkpoints: [expect.anything()] });
  // Then the agent's work: two far-apart changes in app.ts, a file deleted, one added, a binary grown, a big file.
  await writeFile(join(project, 'src', 'app.ts'), APP_BEFORE.replace('Loads the settings', 'Reads the settings').replace("return 'saved';", "return 'stored';"));
  await rm(join(project, 'src', 'util.ts'));
  await writeFile(join(project, 'src', 'new.ts'), 'export const two = 2;\n');
  await writeFile(join(project, 'logo.png'), Buffer.concat([Buffer.from('89504e470d0a1a0a0000', 'hex'), Buffer.alloc(14 * 1024, 2)]));
  await writeFile(join(project, 'data.txt'), Array.from({ length: 2000 }, (_, i) => `row ${i}`).join('\n') + '\n');

  await page.emulateMedia({ colorScheme: 'light' });
  await open(page, 'linear');
  await page.locator('.prompt-row').filter({ hasText: 'WRITE b.txt bee' }).click();
  await page.getByRole('button', { name: 'Restore code to here' }).click();
  const sheet = page.getByRole('dialog');
  const list = sheet.getByRole('list', { name: 'Files that will change' });
  const row = (path: string) => list.locator('.file').filter({ hasText: path });
  await expect(list.locator('.file')).toHaveCount(5);
  await expect(sheet.locator('.code-toolbar')).toContainText('current → restored');
  await expect(sheet.locator('.code-toolbar')).toContainText('5 files');
  await expect(row('src/app.ts').locator('.fbadge')).toHaveText('M');
  await expect(row('src/app.ts').locator('.counts')).toHaveText('+2 −2');
  await expect(row('src/util.ts').locator('.fbadge')).toHaveText('A');
  await expect(row('src/util.ts').locator('.counts')).toHaveText('+1 −0');
  await expect(row('src/new.ts').locator('.fbadge')).toHaveText('D');
  await expect(row('logo.png')).toContainText('binary, 14 KB → 12 KB');
  await expect(row('data.txt')).toContainText('large file: 2000 lines changed');

  // Every hunk of every file, stacked: no clicking from file to file.
  const app = sheet.getByLabel('Changes to src/app.ts');
  await expect(app.locator('.hunk')).toHaveCount(2);
  await expect(app.locator('.diff-line.del')).toContainText(['Reads the settings', "return 'stored';"]);
  await expect(app.locator('.diff-line.add')).toContainText(['Loads the settings', "return 'saved';"]);
  await expect(sheet.getByLabel('Changes to src/util.ts')).toContainText('export const one = 1;');
  await expect(sheet.getByLabel('Changes to src/new.ts')).toContainText('export const two = 2;');
  // Highlighted by file type, once its language has loaded; a comment over two lines stays a comment on both.
  await expect(app).toHaveAttribute('data-highlighted', 'true');
  await expect(app.locator('.hljs-keyword').first()).toBeVisible();
  await expect(app.locator('.diff-line.add .hljs-comment')).toContainText('Loads the settings');
  // Binary and large files are said in words; the large one opens on demand.
  const data = sheet.getByRole('region', { name: 'data.txt' });
  await expect(data.locator('.file-summary')).toContainText('large file: 2000 lines changed');
  await expect(sheet.getByRole('region', { name: 'logo.png' })).toContainText('binary, 14 KB → 12 KB');
  await page.screenshot({ path: join(SHOTS, 'code-preview-light.png') });

  // Side by side: current on the left, restored on the right, for the modified file only.
  await sheet.getByRole('button', { name: 'Side by side' }).click();
  await expect(sheet.getByRole('button', { name: 'Side by side' })).toHaveAttribute('aria-pressed', 'true');
  await expect(app).toHaveClass(/split/);
  const changed = app.locator('.diff-row').filter({ has: page.locator('.diff-half.del') }).first();
  await expect(changed.locator('.diff-half').first()).toContainText('Reads the settings');
  await expect(changed.locator('.diff-half').last()).toContainText('Loads the settings');
  await expect(sheet.getByLabel('Changes to src/util.ts')).toHaveClass(/unified/);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, 'code-preview-split-dark.png') });

  // A file's hunks fold under its header; the list jumps back to it.
  const head = sheet.getByRole('region', { name: 'src/app.ts' }).locator('.file-head');
  await head.click();
  await expect(head).toHaveAttribute('aria-expanded', 'false');
  await expect(app).toHaveCount(0);
  await row('src/app.ts').click();
  await expect(app).toBeVisible();
  await data.getByRole('button', { name: 'Show the diff' }).click();
  await expect(sheet.getByLabel('Changes to data.txt').locator('.diff-line.del')).toHaveCount(2000);

  // At 200% zoom (a 640x400 CSS viewport) side by side still fits: nothing pushes the sheet sideways.
  await page.setViewportSize({ width: 640, height: 400 });
  await app.scrollIntoViewIfNeeded();
  expect(await page.locator('.sheet-body').evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(SHOTS, 'code-preview-zoom-200.png') });
});

test('the details pane: a Write as the file it wrote, Bash as a terminal with its output, the model and tokens', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await open(page, 'linear');
  await page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version one' }).click();
  const detail = page.getByRole('complementary', { name: 'Prompt details' });
  await expect(detail.getByLabel('Model and tokens')).toContainText('claude-opus-5-5');
  await expect(detail.getByLabel('Model and tokens')).toContainText(/\d+ tokens in · \d+ out/);
  await detail.getByRole('button', { name: 'Wrote a.txt' }).click();
  await expect(detail.getByLabel('Content written to a.txt')).toHaveText(/^1\s*version one$/);
  // No raw JSON, no escaped newlines, no "tool-result result".
  await expect(detail).not.toContainText('\\n');
  await expect(detail).not.toContainText('"file_path"');
  await expect(detail).not.toContainText('tool-result');
  await page.screenshot({ path: join(SHOTS, 'details-write-light.png') });

  await page.locator('.prompt-row').filter({ hasText: 'BASH echo bashmade' }).click();
  await detail.getByRole('button', { name: 'Ran echo bashmade > c.txt' }).click();
  const terminal = detail.getByLabel('Terminal');
  await expect(terminal.locator('.terminal-command')).toHaveText('$ echo bashmade > c.txt');
  await expect(terminal.locator('.terminal-output')).toHaveText('(Bash completed with no output)');

  await page.locator('.prompt-row').filter({ hasText: 'EDIT notes.md alpha gamma' }).click();
  await detail.getByRole('button', { name: 'Edited notes.md' }).click();
  await expect(detail.getByLabel('Changes to notes.md').locator('.diff-line.del')).toHaveText(/alpha/);
  await expect(detail.getByLabel('Changes to notes.md').locator('.diff-line.add')).toHaveText(/gamma/);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SHOTS, 'details-edit-dark.png') });
});

test('the details pane: a subagent is a nested conversation that opens and closes, in the pane itself', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await open(page, 'subagent');
  await page.locator('.prompt-row').filter({ hasText: 'SPAWN sub.txt' }).click();
  const detail = page.getByRole('complementary', { name: 'Prompt details' });
  const head = detail.getByRole('button', { name: /Subagent\s*helper task/ });
  await head.click();
  const run = detail.getByLabel('Subagent: helper task');
  await expect(run).toContainText('general-purpose · claude-opus-5-5');
  await expect(run.locator('.asked-text')).toContainText('WRITE sub.txt hello-from-subagent');
  await run.getByRole('button', { name: 'Wrote sub.txt' }).click();
  await expect(run.getByLabel('Content written to sub.txt')).toContainText('hello-from-subagent');
  // Not a dump: no transcript path, and nothing in it scrolls on its own inside the scrolling pane.
  await expect(run).not.toContainText('.jsonl');
  const inner = await run.evaluate((el) =>
    [el, ...el.querySelectorAll('*')]
      .filter((e) => {
        const css = getComputedStyle(e);
        return css.maxHeight !== 'none' || (['auto', 'scroll'].includes(css.overflowY) && e.scrollHeight > e.clientHeight + 1);
      })
      .map((e) => e.className),
  );
  expect(inner).toEqual([]);
  await page.screenshot({ path: join(SHOTS, 'details-subagent-light.png') });
  await head.click();
  await expect(run).toHaveCount(0);
});

test('the details pane shows images: the prompt\'s and a tool result\'s', async ({ page }) => {
  const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
  const lines = (await readFile(transcript, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const user = lines.find((l) => l.type === 'user')!;
  const last = [...lines].reverse().find((l) => l.type === 'assistant')!;
  // A 1x1 PNG.
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } };
  const at = new Date(Date.now() - 60_000).toISOString();
  await appendFile(
    transcript,
    [
      { ...user, uuid: 'e2e-img-prompt', parentUuid: last.uuid, promptId: 'e2e-img', timestamp: at, message: { role: 'user', content: [{ type: 'text', text: 'what is in this picture?' }, image] } },
      { ...last, uuid: 'e2e-img-call', parentUuid: 'e2e-img-prompt', timestamp: at, message: { id: 'e2e-m1', role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'tool_use', id: 'e2e-tu1', name: 'Read', input: { file_path: 'shot.png' } }] } },
      { ...user, uuid: 'e2e-img-result', parentUuid: 'e2e-img-call', promptId: 'e2e-img', timestamp: at, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e2e-tu1', content: [image] }] } },
    ]
      .map((l) => `${JSON.stringify(l)}\n`)
      .join(''),
  );
  await open(page, 'linear');
  await page.locator('.prompt-row').filter({ hasText: 'what is in this picture?' }).click();
  const detail = page.getByRole('complementary', { name: 'Prompt details' });
  await expect(detail.locator('header img')).toHaveAttribute('src', `data:image/png;base64,${png}`);
  await detail.getByRole('button', { name: 'Read shot.png' }).click();
  const shown = detail.locator('.turn img');
  await expect(shown).toHaveCount(1);
  expect(await shown.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
});
