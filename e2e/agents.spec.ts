import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { openApp, removeTempDirs, ROOT, serve, tempDir, type Served } from './server.js';
import { listCheckpoints } from '../src/engine/store/manifest.js';

test.afterAll(removeTempDirs);

/**
 * Factory Droid, Qwen Code and Gemini CLI sessions recorded by the real CLIs (test/fixtures/*-real),
 * beside the Claude demo, each where its CLI keeps it; their project folders are real folders here.
 */
const FIX = join(ROOT, 'test', 'fixtures');
const DROID = '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e';
const QWEN = 'e217908e-90f9-463a-8526-e6d70c1a6d5c';
const GEMINI = 'session-2026-11-23T11-33-f2a3037a.jsonl';
const GEMINI_ID = 'f2a3037a-dcde-407f-a7e7-e90c2f604c95';
const REWOUND_ID = '5e7e11ad-0000-4000-8000-00000000beef';

interface Homes {
  env: NodeJS.ProcessEnv;
  linear: string;
  proj: string;
  rewound: string;
  gemini: string;
  geminiChats: string;
}

async function agentHomes(): Promise<Homes> {
  const h = await tempDir('rewind-e2e-agents-');
  const [linear, proj, rewound] = ['linear', 'proj', 'rewound'].map((p) => join(h, 'projects', p));
  for (const d of [linear!, proj!, rewound!]) await mkdir(d, { recursive: true });
  const past = new Date(Date.now() - 3600_000);
  const put = async (src: string, dst: string, edit: (s: string) => string = (s) => s) => {
    await mkdir(join(dst, '..'), { recursive: true });
    await writeFile(dst, edit((await readFile(src, 'utf8')).replaceAll('/home/dev/projects/linear', linear!).replaceAll('/home/dev/projects/proj', proj!)));
    await utimes(dst, past, past);
  };
  const droidDir = join(h, 'd', '.factory', 'sessions', '-home-dev-projects-linear');
  await put(join(FIX, 'droid-real', `${DROID}.jsonl`), join(droidDir, `${DROID}.jsonl`));
  await put(join(FIX, 'droid-real', `${DROID}.settings.json`), join(droidDir, `${DROID}.settings.json`));
  await put(join(FIX, 'qwen-real', 'native-rewind', `${QWEN}.jsonl`), join(h, 'q', 'projects', '-home-dev-projects-proj', 'chats', `${QWEN}.jsonl`));
  const g = join(h, 'g', '.gemini');
  const gemini = join(g, 'tmp', 'linear', 'chats', GEMINI);
  await put(join(FIX, 'gemini-real', GEMINI), gemini);
  // The same session under another id, after Gemini's own /rewind to its 4th prompt (what it appends).
  const fourth = (await readFile(gemini, 'utf8')).split('\n').map((l) => (l ? (JSON.parse(l) as { id?: string; type?: string; content?: { text?: string }[] }) : null)).find((v) => v?.type === 'user' && v.content?.[0]?.text === 'EDIT notes.md alpha gamma')!.id!;
  await put(join(FIX, 'gemini-real', GEMINI), join(g, 'tmp', 'rewound', 'chats', `session-2026-11-23T11-40-${REWOUND_ID.slice(0, 8)}.jsonl`), (s) => `${s.replaceAll(GEMINI_ID, REWOUND_ID)}${JSON.stringify({ $rewindTo: fourth })}\n`);
  await writeFile(join(g, 'projects.json'), JSON.stringify({ projects: { [linear!]: 'linear', [rewound!]: 'rewound' } }));
  return { env: { FACTORY_HOME_OVERRIDE: join(h, 'd'), QWEN_HOME: join(h, 'q'), GEMINI_CLI_HOME: join(h, 'g') }, linear: linear!, proj: proj!, rewound: rewound!, gemini, geminiChats: join(gemini, '..') };
}

let s: Served;
let x: Homes;
test.beforeEach(async () => {
  x = await agentHomes();
  s = await serve({ env: x.env });
});
test.afterEach(async () => {
  await s.stop();
});

const sessionOf = (page: Page, badge: string, project: string) => page.locator(`.session[data-project="${project}"]`).filter({ has: page.locator('.agent-tag', { hasText: `${badge} ·` }) });
const row = (page: Page, text: string) => page.locator('.prompt-row').filter({ hasText: text });

test('Droid, Qwen and Gemini sessions are listed with their badge beside Claude\'s, and the agent filter narrows the list', async ({ page }) => {
  await openApp(page, s);
  await expect(sessionOf(page, 'Droid', x.linear)).toHaveCount(1);
  await expect(sessionOf(page, 'Qwen', x.proj)).toHaveCount(1);
  await expect(sessionOf(page, 'Gemini', x.linear)).toHaveCount(1);
  await expect(sessionOf(page, 'Gemini', x.rewound)).toHaveCount(1);
  const all = await page.locator('.session').count();
  const claude = page.locator('.session').filter({ hasNot: page.locator('.agent-tag') });
  expect(await claude.count()).toBeGreaterThan(0);

  const filter = page.getByLabel('Agent', { exact: true });
  await expect(filter.locator('option')).toHaveText([`All agents (${all})`, /^Claude Code \(\d+\)$/, 'Factory Droid (1)', 'Qwen Code (1)', 'Gemini CLI (2)']);
  await filter.selectOption('gemini');
  await expect(page.locator('.session')).toHaveCount(2);
  await expect(page.locator('.session .agent-tag')).toHaveText(['Gemini · ', 'Gemini · ']);
  // The text filter works inside the agent's sessions: prompts of other agents match nothing here.
  await page.getByLabel('Filter sessions and prompts').fill('bashmade');
  await expect(page.locator('.session')).toHaveCount(2);
  await filter.selectOption('droid');
  await expect(page.locator('.session')).toHaveCount(1);
  await expect(page.locator('.session .agent-tag')).toHaveText('Droid · ');
  await page.getByLabel('Filter sessions and prompts').fill('');
  await filter.selectOption('');
  await expect(page.locator('.session')).toHaveCount(all);
  // Badges and the menu meet WCAG AA in both schemes.
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const r = await new AxeBuilder({ page }).include('.sidebar').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(r.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`)), `axe on the sidebar (${scheme})`).toEqual([]);
  }
  await page.screenshot({ path: join(ROOT, 'test-results', 'screenshots', 'agents-sidebar-dark.png') });
});

test('the timeline shows Qwen\'s native rewind and Gemini\'s $rewindTo as abandoned branches', async ({ page }) => {
  await openApp(page, s);
  await sessionOf(page, 'Qwen', x.proj).click();
  await expect(page.locator('.prompt-row').first()).toBeVisible();
  await expect(page.locator('.prompt-row.dead').first()).toBeVisible();
  await expect(page.locator('.prompt-row:not(.dead)').first()).toBeVisible();

  await sessionOf(page, 'Gemini', x.rewound).click();
  await expect(row(page, 'EDIT notes.md alpha gamma')).toHaveClass(/dead/);
  await expect(row(page, 'just chatting')).toHaveClass(/dead/);
  await expect(page.locator('.prompt-row:not(.dead)')).toHaveCount(3);
  await expect(row(page, 'EDIT notes.md alpha gamma').locator('.dead-chip')).toHaveText('abandoned branch');
});

test('Gemini from the window: a fork and an in-place rewind, each previewed, with a copyable resume command, and undone', async ({ page }) => {
  const original = await readFile(x.gemini);
  const files = (await readdir(x.geminiChats)).sort();
  await openApp(page, s);
  await sessionOf(page, 'Gemini', x.linear).click();
  await expect(row(page, 'just chatting')).toBeVisible();

  // Fork before #4.
  await row(page, 'EDIT notes.md alpha gamma').click();
  await page.getByRole('button', { name: 'Fork here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet.locator('.statement')).toContainText("The new session will end after #3 'BASH echo bashmade > c.txt'.");
  await expect(sheet.locator('.statement')).toContainText('Leaves out #4, #5 (live).');
  await expect(sheet.locator('.statement')).toContainText('Handed back to edit: 2 prompts, oldest first.');
  await sheet.getByRole('button', { name: /Fork before this prompt/ }).click();
  const result = page.getByRole('status', { name: 'Result' });
  await expect(result).toContainText('Fork created');
  const resume = result.getByLabel('Resume command', { exact: true });
  await expect(resume).toHaveText(/^gemini --resume [0-9a-f-]{36}$/);
  const forkId = (await resume.textContent())!.split(' ').pop()!;
  expect((await readdir(x.geminiChats)).some((f) => f.endsWith(`-${forkId.slice(0, 8)}.jsonl`))).toBe(true);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await result.getByRole('button', { name: 'Copy the resume command' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`gemini --resume ${forkId}`);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(result).toContainText('Removed fork');
  expect((await readdir(x.geminiChats)).sort()).toEqual(files);
  await expect(page.locator('.session.is-fork'), 'the list follows the undo').toHaveCount(0);

  // In place before #5: red confirm, the dropped prompt shows as a dead lane, undo puts the bytes back.
  await sessionOf(page, 'Gemini', x.linear).click();
  await row(page, 'just chatting').click();
  await page.getByRole('button', { name: 'Rewrite here' }).click();
  await expect(sheet.locator('.statement')).toContainText("The session will end after #4 'EDIT notes.md alpha gamma'.");
  const confirm = sheet.getByRole('button', { name: /Rewrite: leave out 1 prompt/ });
  await expect(confirm).toHaveAttribute('data-destructive', 'true');
  await confirm.click();
  await expect(result).toContainText('Chat rewritten in place');
  await expect(result.getByLabel('Resume command', { exact: true })).toHaveText(`gemini --resume ${GEMINI_ID}`);
  await expect(row(page, 'just chatting')).toHaveClass(/dead/);
  const after = await readFile(x.gemini);
  expect(after.subarray(0, original.length)).toEqual(original);
  expect(after.subarray(original.length).toString()).toMatch(/^\{"\$rewindTo":"[^"]+"\}\n$/);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(result).not.toContainText('Chat rewritten in place');
  await expect.poll(() => readFile(x.gemini)).toEqual(original);
  await expect(row(page, 'just chatting')).not.toHaveClass(/dead/);
});

test('a Qwen in-place rewrite on an abandoned prompt names every prompt it takes away; neither it nor its undo leaves a checkpoint under an old prompt', async ({ page }) => {
  await openApp(page, s);
  await sessionOf(page, 'Qwen', x.proj).click();
  await row(page, 'WRITE a.txt version two').click();
  await page.getByRole('button', { name: 'Rewrite here' }).click();
  const sheet = page.getByRole('dialog');
  const statement = sheet.locator('.statement');
  await expect(statement).toContainText("The session will end after #1 'WRITE a.txt version one'.");
  await expect(statement).toContainText("Leaves out #2 (live; it stays in the file as an abandoned branch) and 'WRITE b.txt bee' (after it on its abandoned branch).");
  await expect(statement).toContainText('Handed back to edit: 2 prompts, oldest first.');
  await sheet.getByRole('button', { name: /Rewrite: leave out 3 prompts/ }).click();
  const result = page.getByRole('status', { name: 'Result' });
  await expect(result).toContainText('Chat rewritten in place');
  // What was named is what went: the target and its branch are out of the file; live #2 stays, abandoned.
  await expect(row(page, 'WRITE b.txt bee')).toHaveCount(0);
  await expect(row(page, 'WRITE a.txt version two')).toHaveCount(0);
  await expect(row(page, 'WRITE d.txt after native rewind')).toHaveClass(/dead/);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(row(page, 'WRITE b.txt bee')).toHaveCount(1);
  await expect(row(page, 'WRITE d.txt after native rewind')).not.toHaveClass(/dead/);
  // The rewrite made the project's store (its backup): the watcher now checkpoints new prompts, and
  // the rewrite and the undo are not new prompts. Give it time to have looked.
  await page.waitForTimeout(1500);
  expect((await listCheckpoints(x.proj)).map((c) => [c.trigger, c.time, c.transcript?.prompt_uuid])).toEqual([]);
  await expect(page.locator('.prompt-row .marker.ours')).toHaveCount(0);
});

test('Droid and Qwen from the window: a fork each, with the resume command, undone', async ({ page }) => {
  await openApp(page, s);
  for (const [badge, project, prompt, command] of [
    ['Droid', x.linear, 'EDIT notes.md alpha gamma', 'droid exec -s'],
    ['Qwen', x.proj, null, 'qwen --resume'],
  ] as const) {
    await sessionOf(page, badge, project).click();
    const live = page.locator('.prompt-row:not(.dead)');
    await expect(live.first()).toBeVisible();
    await (prompt ? row(page, prompt) : live.last()).click();
    await page.getByRole('button', { name: 'Fork here' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /Fork before this prompt/ }).click();
    const result = page.getByRole('status', { name: 'Result' });
    await expect(result).toContainText('Fork created');
    await expect(result.getByLabel('Resume command', { exact: true })).toHaveText(new RegExp(`^${command} [0-9a-f-]{36}$`));
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect(result).toContainText('Removed fork');
    // The next fork's result must not be read off this one's bar.
    await page.getByRole('button', { name: 'Dismiss', exact: true }).click();
    await expect(result).toHaveCount(0);
  }
});
