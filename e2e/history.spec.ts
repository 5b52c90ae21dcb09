import { execFileSync } from 'node:child_process';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { CLI, openApp, serve, transcriptOf, type Served } from './server.js';

let s: Served;
test.beforeEach(async () => {
  s = await serve();
});
test.afterEach(async () => {
  await s.stop();
});

const shared = Array.from({ length: 40 }, (_, i) => `shared line ${i + 1}`);
const withLine = (i: number, v: string, base = shared) => `${base.map((l, k) => (k === i ? v : l)).join('\n')}\n`;

/**
 * The linear session replayed with Rewind's hook as Claude Code calls it: a checkpoint before each
 * prompt, then that prompt's edits. #2 writes a.txt, adds mid.txt and changes shared.ts line 21;
 * #4 changes the same line again (the overlap).
 */
async function replay(project: string) {
  const transcript = await transcriptOf(s.claudeRoot, '2ea8980a');
  const users = (await readFile(transcript, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type?: string; promptId?: string; message?: { content?: unknown } })
    .filter((l) => l.type === 'user' && typeof l.message?.content === 'string');
  expect(users).toHaveLength(5);
  const hook = (payload: Record<string, unknown>) =>
    execFileSync(process.execPath, [CLI, 'hook'], { env: { ...s.env, REWIND_NO_FORWARD: '1' }, input: JSON.stringify({ cwd: project, transcript_path: transcript, session_id: '2ea8980a-26fe-4928-aab5-4ebf6074b664', ...payload }) });
  await writeFile(join(project, 'a.txt'), 'v0\n');
  await writeFile(join(project, 'shared.ts'), withLine(-1, ''));
  await rm(join(project, 'b.txt'), { force: true });
  await rm(join(project, 'c.txt'), { force: true });
  const edits: Record<string, string | null>[] = [
    { 'a.txt': 'version one\n' },
    { 'a.txt': 'version two\n', 'mid.txt': 'made by #2\n', 'shared.ts': withLine(20, 'shared line 21 by #2') },
    { 'c.txt': 'bashmade\n' },
    { 'shared.ts': withLine(20, 'shared line 21 by #4') },
    { 'b.txt': 'bee\n' },
  ];
  for (let i = 0; i < 5; i++) {
    // A shell tool's edits are not listed: the next checkpoint walks the whole tree.
    hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'edit' } });
    hook({ hook_event_name: 'UserPromptSubmit', prompt_id: users[i]!.promptId });
    // A project's first checkpoint is taken in the background (the prompt goes on at once): the
    // edits below come after it is complete, as the agent's model takes its time before its first tool.
    if (i === 0) await expect.poll(() => (JSON.parse(execFileSync(process.execPath, [CLI, 'checkpoints', '--json'], { cwd: project, env: { ...s.env, REWIND_NO_FORWARD: '1' }, encoding: 'utf8' })) as { inProgress: string | null }).inProgress, { timeout: 60_000 }).toBeNull();
    for (const [f, v] of Object.entries(edits[i]!)) await writeFile(join(project, f), v!);
  }
}

/** WCAG A/AA (axe-core) on one open sheet only: the rest of the window has its own checks. */
async function expectAccessible(page: Page, selector: string) {
  const r = await new AxeBuilder({ page }).include(selector).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))).toEqual([]);
}

const exists = async (p: string) => !!(await stat(p).catch(() => null));

test('revert a middle prompt from the window: the conflict and its choice, then undo it from the History panel', async ({ page }) => {
  const project = join(s.projectsDir, 'linear');
  await replay(project);
  await openApp(page, s);
  await page.locator('.session[data-project$="linear"]').click();
  await page.locator('.prompt-row').filter({ hasText: 'WRITE a.txt version two' }).click();
  await page.getByRole('button', { name: "Revert this prompt's changes" }).click();

  const sheet = page.getByRole('dialog', { name: "Revert this prompt's changes" });
  const conflict = sheet.getByRole('listitem', { name: 'Conflict in shared.ts' });
  await expect(conflict).toBeVisible();
  // Both sides, and nothing chosen for the user: the confirm waits for a choice.
  // Before #2 → now, the changed line highlighted (the whole files under a disclosure); the prompt by its number, no id.
  await expect(conflict.locator('.diff-line.add')).toContainText('shared line 21 by #4');
  await expect(conflict.locator('.diff-line.del')).toContainText('shared line 21');
  await expect(conflict).toContainText('Before #2 “WRITE a.txt version two” → now (2 changed lines)');
  await expect(conflict.getByRole('figure', { name: 'Before the prompt', includeHidden: true })).toContainText('shared line 21\n');
  const confirm = sheet.locator('.sheet-footer .button.primary');
  await expect(confirm).toBeDisabled();
  await expect(confirm).toHaveText('Choose for 1 conflicted file first');
  await expect(sheet.getByRole('list', { name: 'Files that will change' }).locator('.file')).toHaveCount(2);
  await expectAccessible(page, '.sheet');
  await conflict.getByRole('radio', { name: 'Take the file before the prompt' }).click();
  await expect(conflict.getByRole('radio', { name: 'Take the file before the prompt' })).toBeChecked();
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
