import { readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { takeCheckpoint } from '../store/checkpoint.js';
import { handleAgentHook } from './handle-hook.js';

/** The files a prompt's checkpoint read, from the hook's debug line. */
const filesRead = (said: string) => Number(/"filesRead":(\d+)/.exec(said)?.[1] ?? Number.NaN);

async function project() {
  const root = await tempDir('rewind-toolhook-');
  await writeFile(join(root, 'a.txt'), 'a\n');
  await writeFile(join(root, 'b.txt'), 'b\n');
  const old = new Date(Date.now() - 60_000);
  for (const f of ['a.txt', 'b.txt']) await utimes(join(root, f), old, old);
  // Two checkpoints: the second reads the files once more (racy after the first), then the cache vouches for them.
  await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
  await takeCheckpoint({ projectRoot: root, trigger: 'manual' });
  const hook = (p: Record<string, unknown>) => handleAgentHook('claude', { session_id: 's1', cwd: root, ...p }, { CLAUDE_PROJECT_DIR: root, REWIND_HOOK_DEBUG: '1' });
  return { root, hook };
}

describe('tool hooks record what the tool touches and return', () => {
  it('a path a tool named is read by the next prompt checkpoint whatever its stat says; one no tool named is not', async () => {
    const { hook } = await project();
    expect(filesRead(await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p1' }))).toBe(0);
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'a.txt' } });
    await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'make' } });
    expect(filesRead(await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p2' }))).toBe(1);
    // Taken once: the prompt after reads nothing again.
    expect(filesRead(await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p3' }))).toBe(0);
  });

  it('takes no lock: a tool hook goes on while another hook holds the lock', async () => {
    const { root, hook } = await project();
    // A live process (this one) holds the hooks' lock, as a prompt's checkpoint would.
    await writeFile(join(root, '.agent', 'rewind', 'touched.lock'), JSON.stringify({ pid: process.pid, time: Date.now() }));
    const t0 = Date.now();
    expect(await hook({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(root, 'b.txt') } })).toMatch(/touched b\.txt/);
    expect(await hook({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: { file_path: join(root, 'b.txt') } })).toMatch(/recorded Edit b\.txt/);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(await readFile(join(root, '.agent', 'rewind', 'touched.jsonl'), 'utf8')).toBe('{"paths":["b.txt"]}\n');
  });
});
