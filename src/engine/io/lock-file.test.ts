import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { handleAgentHook } from '../hooks/handle-hook.js';
import { installAgentHooks } from '../hooks/agents-hooks.js';
import { acquireLock } from './lock-file.js';

/**
 * A project can ship what sits where Rewind takes its locks (`.agent/rewind/touched.lock`,
 * `.qwen/settings.json.rewind-lock`): a folder there made every hook spin at full CPU for ever
 * (the stale lock's removal failed silently and was retried at once), and a lock naming a live pid
 * (1) with a time ahead of the clock held every hook for its whole wait, so no checkpoint was ever taken.
 */

const opts = (waitMs: number) => ({ waitMs, maxAgeMs: 60_000, busy: () => new Error('busy') });

describe('lock files a project ships', () => {
  it('a folder where the lock goes is refused at once, in one line, never spun on', async () => {
    const dir = await tempDir('lock-dir-');
    const path = join(dir, 'x.lock');
    await mkdir(path);
    const t = Date.now();
    await expect(acquireLock(path, opts(2_000))).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/not a lock file Rewind made/) });
    expect(Date.now() - t).toBeLessThan(1_500);
  });

  it('a lock naming a live pid with a time ahead of the clock is stale: taken at once', async () => {
    const dir = await tempDir('lock-future-');
    const path = join(dir, 'x.lock');
    await writeFile(path, JSON.stringify({ pid: process.pid, time: Date.now() + 24 * 3600_000 }));
    const t = Date.now();
    const lock = await acquireLock(path, opts(3_000));
    expect(Date.now() - t).toBeLessThan(1_500);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('a lock of a live process taken just now still makes the next one wait (then busy)', async () => {
    const dir = await tempDir('lock-busy-');
    const path = join(dir, 'x.lock');
    const first = await acquireLock(path, opts(100));
    await expect(acquireLock(path, opts(300))).rejects.toThrow('busy');
    await first.release();
  });

  it('the hook with a folder shipped as touched.lock returns in moments and logs why', async () => {
    const base = await tempDir('lock-hook-');
    const project = join(base, 'proj');
    await mkdir(join(project, '.agent', 'rewind', 'touched.lock'), { recursive: true });
    await writeFile(join(project, 'a.txt'), 'a\n');
    const t = Date.now();
    // A prompt takes the lock (a tool hook takes none: it only appends its paths).
    const payload = { hook_event_name: 'UserPromptSubmit', session_id: 's', cwd: project, prompt_id: 'p1' };
    await expect(handleAgentHook('claude', payload, { HOME: base })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(Date.now() - t).toBeLessThan(3_000);
  }, 20_000);

  it('hooks install with a folder shipped as the config lock is refused in one line', async () => {
    const base = await tempDir('lock-install-');
    const project = join(base, 'proj');
    await mkdir(join(project, '.qwen', 'settings.json.rewind-lock'), { recursive: true });
    await writeFile(join(project, '.qwen', 'settings.json'), '{}\n');
    await expect(installAgentHooks('qwen', { projectRoot: project, env: { HOME: base }, scope: 'project', command: 'rewind-app hook' })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readFile(join(project, '.qwen', 'settings.json'), 'utf8')).toBe('{}\n');
  }, 20_000);
});
