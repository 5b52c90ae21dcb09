import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { treeOf } from '../test/agent-store.js';
import { tempDir } from '../test/fixtures.js';
import { CLI, openApp, serve, type Served } from './server.js';

let s: Served | null = null;
let home: string | null = null;
test.afterEach(async () => {
  await s?.stop();
  s = null;
  if (home) await rm(home, { recursive: true, force: true });
  home = null;
});

/**
 * A Qwen Code session recorded with the window closed, Rewind's hook run as Qwen runs it
 * (`rewind-app hook --agent qwen`, the payloads of FORMATS.md §2c, the prompt written after the
 * prompt event): a file write, then a shell `rm` of a file that was there before the session.
 */
async function qwenSessionWithHooks() {
  home = await tempDir('qwen-hooks-e2e-');
  const project = join(home, 'proj');
  await mkdir(project);
  await writeFile(join(project, 'keep.txt'), 'there before the session\n');
  const sessionId = randomUUID();
  const chats = join(home, '.qwen', 'projects', project.replace(/[\\/]/g, '-'), 'chats');
  await mkdir(chats, { recursive: true });
  const transcript = join(chats, `${sessionId}.jsonl`);
  const hook = (payload: object) => {
    const r = spawnSync(process.execPath, [CLI, 'hook', '--agent', 'qwen'], { input: JSON.stringify({ session_id: sessionId, transcript_path: transcript, cwd: project, ...payload }), env: { ...process.env, HOME: home! }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
  };
  let parent: string | null = null;
  const line = async (type: string, message: object) => {
    const uuid = randomUUID();
    await appendFile(transcript, `${JSON.stringify({ uuid, parentUuid: parent, sessionId, timestamp: new Date().toISOString(), type, cwd: project, version: '0.24.4', message })}\n`);
    parent = uuid;
  };
  let n = 0;
  const prompt = async (text: string, tool: { name: string; input: object; act: () => Promise<void> } | null) => {
    n++;
    hook({ hook_event_name: 'UserPromptSubmit', prompt: text, submitted_prompt: text, prompt_id: `${sessionId}########${n}` });
    await line('user', { role: 'user', parts: [{ text }] });
    if (tool) {
      hook({ hook_event_name: 'PreToolUse', tool_name: tool.name, tool_input: tool.input });
      await tool.act();
      hook({ hook_event_name: 'PostToolUse', tool_name: tool.name, tool_input: tool.input });
      hook({ hook_event_name: 'UserPromptSubmit', prompt: '', prompt_id: `${sessionId}########${n}` });
    }
    await line('assistant', { role: 'model', parts: [{ text: 'done' }] });
    hook({ hook_event_name: 'Stop' });
  };
  await prompt('WRITE a.txt version one', { name: 'write_file', input: { file_path: join(project, 'a.txt') }, act: () => writeFile(join(project, 'a.txt'), 'version one\n') });
  await prompt('BASH rm keep.txt', { name: 'run_shell_command', input: { command: 'rm keep.txt' }, act: () => unlink(join(project, 'keep.txt')) });
  await prompt('just chatting', null);
  return { project, root: join(home, '.qwen') };
}

test("Restore code to here on a Qwen prompt after a shell rm: Rewind's checkpoint puts the deleted file back, Undo removes it again", async ({ page }) => {
  const h = await qwenSessionWithHooks();
  expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
  s = await serve({ env: { QWEN_HOME: h.root } });
  await openApp(page, s);
  await page.locator('.session').filter({ hasText: 'WRITE a.txt version one' }).first().click();
  const row = page.locator('.prompt-row').filter({ hasText: 'BASH rm keep.txt' });
  await row.click();
  await page.getByRole('button', { name: 'Restore code to here' }).click();
  const sheet = page.getByRole('dialog');
  await expect(sheet).toContainText('Rewind checkpoint');
  await expect(sheet.locator('.file').filter({ hasText: 'keep.txt' })).toBeVisible();
  await expect(sheet.locator('.diff-line.add').filter({ hasText: 'there before the session' })).toHaveCount(1);
  await sheet.getByRole('button', { name: 'Restore 1 file' }).click();
  await expect(page.getByRole('status', { name: 'Result' })).toContainText('Restored 1 file');
  expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n', 'keep.txt': 'there before the session\n' });
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
});
