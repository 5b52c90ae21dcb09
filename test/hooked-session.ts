import { mkdir, readFile, unlink, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { handleAgentHook } from '../src/engine/hooks/handle-hook.js';
import { readRestoreSession } from '../src/engine/store/restore-session.js';
import { LINEAR, copyClaudeHome, inCopy, tempDir } from './fixtures.js';
import { snapshotTree } from './tree.js';

export const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`);
export const text = (ls: string[]) => `${ls.join('\n')}\n`;
export const edit = (t: string, i: number, v: string) => {
  const ls = t.split('\n');
  ls[i] = v;
  return ls.join('\n');
};
const pause = () => new Promise((r) => setTimeout(r, 5));

type Step = { write?: Record<string, string>; remove?: string[]; bash?: boolean };

/**
 * A Claude Code session with Rewind's hooks installed, replayed on a real project: the real
 * fixture transcript's five prompts, each checkpointed by the hook as Claude Code calls it
 * (UserPromptSubmit with the prompt's id), then that prompt's edits through Pre/PostToolUse.
 */
export async function hookedSession(dirs: string[], o: { handEdit?: (project: string, beforePrompt: number) => Promise<void>; stop?: boolean } = {}) {
  const home = await copyClaudeHome();
  dirs.push(dirname(home));
  const transcript = inCopy(home, LINEAR);
  // The prompts happen now, as the hooks fire: a checkpoint taken long after its prompt's own time
  // is "taken later", never the prompt's. The recorded times move to the near future (same length).
  const soon = new Date(Date.now() + 10 * 60_000).toISOString();
  await writeFile(transcript, (await readFile(transcript, 'utf8')).replace(/"timestamp":"[^"]+"/g, `"timestamp":"${soon}"`));
  const past = new Date(Date.now() - 3600_000);
  await utimes(transcript, past, past);
  const project = await tempDir('rewind-revert-');
  dirs.push(project);
  const s = await readRestoreSession(transcript);
  const prompts = s.prompts.filter((p) => p.active);
  expect(prompts).toHaveLength(5);
  const shared = text(lines(40, 'shared'));
  await writeFile(join(project, 'a.txt'), 'v0\n');
  await writeFile(join(project, 'shared.ts'), shared);
  await writeFile(join(project, 'notes.md'), text(['alpha beta', ...lines(12, 'notes')]));
  await writeFile(join(project, 'old.txt'), 'to be deleted\n');
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'src', 'keep.ts'), 'export const keep = 1;\n');
  const env = { ...process.env, CLAUDE_PROJECT_DIR: project };
  const hook = (p: Record<string, unknown>) => handleAgentHook('claude', { cwd: project, transcript_path: transcript, session_id: '2ea8980a-26fe-4928-aab5-4ebf6074b664', ...p }, env);
  const cur = async (f: string) => readFile(join(project, f), 'utf8');
  // What each prompt does (its text says roughly what): later prompts overlap earlier ones on
  // purpose (a.txt by #1 and #2, notes.md line 1 by #4 and #5), and change other lines of shared.ts.
  const steps: (() => Promise<Step>)[] = [
    async () => ({ write: { 'a.txt': 'version one\n', 'shared.ts': edit(await cur('shared.ts'), 2, 'shared line 3 by #1') } }),
    async () => ({ write: { 'a.txt': 'version two\n', 'shared.ts': edit(await cur('shared.ts'), 20, 'shared line 21 by #2') } }),
    async () => ({ write: { 'c.txt': 'bashmade\n' }, bash: true }),
    async () => ({ write: { 'notes.md': edit(await cur('notes.md'), 0, 'alpha gamma') }, remove: ['old.txt'] }),
    async () => ({ write: { 'b.txt': 'bee\n', 'notes.md': edit(await cur('notes.md'), 0, 'alpha delta'), 'shared.ts': edit(await cur('shared.ts'), 35, 'shared line 36 by #5') } }),
  ];
  /** The tree as it was when each prompt was sent (the user's own edits before it included). */
  const trees: Record<string, string>[] = [];
  for (let i = 0; i < prompts.length; i++) {
    await pause();
    // The user's own edits between two prompts: no hook sees them.
    await o.handEdit?.(project, i);
    trees.push(await snapshotTree(project));
    await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: prompts[i]!.promptId });
    await pause();
    const step = await steps[i]!();
    if (step.bash) await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo bashmade > c.txt' } });
    for (const [f, content] of Object.entries(step.write ?? {})) {
      if (!step.bash) await hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(project, f) } });
      await writeFile(join(project, f), content);
      if (!step.bash) await hook({ hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: join(project, f) } });
    }
    for (const f of step.remove ?? []) {
      await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: `rm ${f}` } });
      await unlink(join(project, f));
    }
    if (o.stop) await hook({ hook_event_name: 'Stop' });
  }
  return { project, transcript, home, session: s, prompts, trees };
}

