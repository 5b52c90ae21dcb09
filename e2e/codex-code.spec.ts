import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { openApp, removeTempDirs, serve, tempDir, type Served } from './server.js';

test.afterAll(removeTempDirs);

let s: Served | null = null;
test.afterEach(async () => {
  await s?.stop();
  s = null;
});

const ID = '01a20831-bbbb-7000-8000-000000000002';
const line = (o: Record<string, unknown>) => `${JSON.stringify({ timestamp: new Date().toISOString(), ...o })}\n`;
const prompt = (text: string) =>
  line({ type: 'event_msg', payload: { type: 'task_started', turn_id: text } }) +
  line({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }], internal_chat_message_metadata_passthrough: { content_item_kinds: ['user.text'] } } });

// Codex has no hooks and keeps no file history: the open app checkpoints the project at each new
// prompt it sees, and that checkpoint is what "Restore code to here" puts back.
test('Codex: a prompt the open window saw arrive gets a checkpoint, and Restore code to here puts its files back, with Undo', async ({ page }) => {
  const home = await tempDir('rewind-e2e-codex-code-');
  const project = await tempDir('rewind-e2e-codex-project-');
  await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
  await writeFile(join(project, 'a.txt'), 'one\n');
  const rollout = join(home, 'sessions', '2026', '11', '23', `rollout-2026-11-23T11-00-00-${ID}.jsonl`);
  await mkdir(dirname(rollout), { recursive: true });
  await writeFile(rollout, line({ type: 'session_meta', payload: { id: ID, cwd: project, cli_version: '0.169.0' } }) + prompt('first codex prompt'));
  s = await serve({ codexHome: home });
  await openApp(page, s);
  await page.locator('.session').filter({ hasText: 'first codex prompt' }).click();
  await expect(page.locator('.prompt-row')).toHaveCount(1);

  // Codex sends the next prompt, then its turn edits the file.
  await appendFile(rollout, prompt('second codex prompt'));
  const second = page.locator('.prompt-row').filter({ hasText: 'second codex prompt' });
  await expect(second.locator('.marker')).toHaveCount(1, { timeout: 10_000 });
  await writeFile(join(project, 'a.txt'), 'two\n');

  await second.click();
  await page.getByRole('button', { name: 'Restore code to here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet.locator('.file').filter({ hasText: 'a.txt' })).toBeVisible();
  await sheet.getByRole('button', { name: /^Restore 1 file/ }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Restored 1 file');
  expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('one\n');
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => readFile(join(project, 'a.txt'), 'utf8')).toBe('two\n');
});

test('a restore killed half-way is rolled back when its project is opened, and the result bar says so', async ({ page }) => {
  const home = await tempDir('rewind-e2e-recover-');
  const project = await tempDir('rewind-e2e-recover-project-');
  await writeFile(join(project, 'a.txt'), 'one\n');
  // What a killed restore leaves: its intent record (from a process that is gone) and a half-written file.
  const { takeCheckpoint } = await import('../src/engine/store/checkpoint.js');
  const { beginIntent } = await import('../src/engine/store/restore-intent.js');
  const pre = await takeCheckpoint({ projectRoot: project, trigger: 'pre-restore' });
  const tx = await beginIntent(project, { op: 'restore', preRestoreCheckpointId: pre.manifest.id, onComplete: null }, ['a.txt'], []);
  await writeFile(tx.file, JSON.stringify({ ...tx.pending, pid: 2 ** 22 + 12345 }));
  await writeFile(join(project, 'a.txt'), 'half restored\n');
  const rollout = join(home, 'sessions', '2026', '11', '23', `rollout-2026-11-23T11-00-00-${ID}.jsonl`);
  await mkdir(dirname(rollout), { recursive: true });
  await writeFile(rollout, line({ type: 'session_meta', payload: { id: ID, cwd: project, cli_version: '0.169.0' } }) + prompt('recover me'));
  s = await serve({ codexHome: home });
  await openApp(page, s);
  await page.locator('.session').filter({ hasText: 'recover me' }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText(/interrupted restore .* was rolled back/);
  expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('one\n');
});
