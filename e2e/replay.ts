import { execFileSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { CLI, transcriptOf, type Served } from './server.js';

export const shared = Array.from({ length: 40 }, (_, i) => `shared line ${i + 1}`);
export const withLine = (i: number, v: string, base = shared) => `${base.map((l, k) => (k === i ? v : l)).join('\n')}\n`;

/**
 * The linear session replayed with Rewind's hook as Claude Code calls it: a checkpoint before each
 * prompt, then that prompt's edits. #2 writes a.txt, adds mid.txt and changes shared.ts line 21;
 * #4 changes the same line again (the overlap).
 */
export async function replayLinear(s: Served, project: string): Promise<void> {
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
    hook({ hook_event_name: 'UserPromptSubmit', prompt_id: users[i]!.promptId });
    // A project's first checkpoint is taken in the background (the prompt goes on at once): the
    // edits below come after it is complete, as the agent's model takes its time before its first tool.
    if (i === 0) await expect.poll(() => (JSON.parse(execFileSync(process.execPath, [CLI, 'checkpoints', '--json'], { cwd: project, env: { ...s.env, REWIND_NO_FORWARD: '1' }, encoding: 'utf8' })) as { inProgress: string | null }).inProgress, { timeout: 60_000 }).toBeNull();
    // The agent's shell tool, as the agent runs it: its pre-hook (which waits for a later prompt's
    // checkpoint, taken in the background too), then its edits. A shell's edits are not listed: the
    // next checkpoint walks the whole tree.
    hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'edit' } });
    for (const [f, v] of Object.entries(edits[i]!)) await writeFile(join(project, f), v!);
  }
}

