import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { run } from '../../cli/main.js';
import { handleAgentHook } from '../hooks/handle-hook.js';
import { readBackground, runBackground } from './background-checkpoint.js';
import { objectStore } from './checkpoint.js';
import { listCheckpoints, readManifest } from './manifest.js';
import { resolveRestoreTarget } from './restore.js';

describe("a project's first checkpoint runs in the background", () => {
  it('the prompt hook returns at once; until it is complete `checkpoints` says so and a restore to that prompt waits; it holds the tree as the prompt was sent', async () => {
    const project = await tempDir('rewind-bg-');
    await writeFile(join(project, 'a.txt'), 'as the user had it\n');
    await writeFile(join(project, 'b.txt'), 'b\n');
    // The child the hook starts: here one that only waits, so the test runs the job itself, in-process.
    const child = ['-e', 'setTimeout(() => {}, 60000)'];
    const transcript = join(await tempDir('rewind-bg-session-'), 's1.jsonl');
    await writeFile(transcript, '{}\n');
    const hook = (p: Record<string, unknown>) => handleAgentHook('claude', { session_id: 's1', cwd: project, transcript_path: transcript, ...p }, { CLAUDE_PROJECT_DIR: project }, child);
    const said = await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p1' });
    const id = /checkpoint (\S+)/.exec(said)![1]!;
    const bg = (await readBackground(project))!;
    try {
      expect(await listCheckpoints(project)).toEqual([]);
      let out = '';
      await run(['checkpoints', '--project', project, '--json'], { out: (s: string) => (out += s), err: () => undefined, env: { HOME: '/nonexistent-home' }, cwd: project });
      expect((JSON.parse(out) as { inProgress: string }).inProgress).toMatch(/^first checkpoint in progress/);
      await expect(resolveRestoreTarget({ projectRoot: project, ref: 'p1', session: { transcriptPath: '/x', agent: 'claude', prompts: [{ uuid: 'p1', promptId: 'p1', active: true }] } })).rejects.toThrow(/may not be complete yet.*first checkpoint in progress/);
      // The agent's tools run while it is being read: a.txt's content before the write is kept.
      await hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'a.txt') } });
      await writeFile(join(project, 'a.txt'), 'written by the agent\n');
      await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make' } });
      await runBackground(project);
    } finally {
      process.kill(bg.pid);
    }
    expect(await readBackground(project)).toBeNull();
    const m = await readManifest(project, id);
    const a = m.entries.find((e) => e[0] === 'a.txt')!;
    expect((await objectStore(project).read(a[2])).toString()).toBe('as the user had it\n');
    expect(m.background?.note).toMatch(/a shell command ran while this first checkpoint was read/);
    expect((await listCheckpoints(project)).map((c) => [c.id, c.transcript?.prompt_id])).toEqual([[id, 'p1']]);
    // The next one (here taken inline; a real hook gives it to a child its tools wait for, see
    // prompt-background.test.ts) is a quick one: it sees the agent's write.
    await handleAgentHook('claude', { session_id: 's1', cwd: project, transcript_path: transcript, hook_event_name: 'UserPromptSubmit', prompt_id: 'p2' }, { CLAUDE_PROJECT_DIR: project }, null);
    const list = await listCheckpoints(project);
    expect(list).toHaveLength(2);
    expect(list[1]!.changed.modified).toEqual(['a.txt']);
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('written by the agent\n');
  });
});
