import type * as FsPromises from 'node:fs/promises';
import { mkdir, readdir, readFile, writeFile as realWriteFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../test/temp.js';

/**
 * A full disk while a lock is taken (probed on a 2 MB tmpfs for issue #34): the lock's temp file
 * is created, its write fails, and it was left beside the user's config for good. The write
 * fails here as it does on a full disk: after the create, with ENOSPC.
 */
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  return {
    ...fs,
    writeFile: async (...args: Parameters<typeof fs.writeFile>) => {
      const [file, , opts] = args;
      if (typeof file === 'string' && file.includes('.rewind-lock.') && (process.env.REWIND_TEST_FULL_DISK ?? '') === '1') {
        await fs.writeFile(file, '', opts as never);
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
      }
      return fs.writeFile(...args);
    },
  };
});

describe('a lock taken on a full disk', () => {
  it('fails in one line naming the lock, and leaves no temp file beside the config', async () => {
    const { installAgentHooks } = await import('../hooks/agents-hooks.js');
    const home = await tempDir('lock-full-');
    const dir = join(home, '.qwen');
    await mkdir(dir);
    await realWriteFile(join(dir, 'settings.json'), '{\n  "mine": 1\n}\n');
    process.env.REWIND_TEST_FULL_DISK = '1';
    try {
      await expect(installAgentHooks('qwen', { projectRoot: home, env: { HOME: home }, scope: 'user', command: 'rewind-app hook' })).rejects.toMatchObject({ code: 'ENOSPC', path: join(dir, 'settings.json.rewind-lock') });
    } finally {
      delete process.env.REWIND_TEST_FULL_DISK;
    }
    expect(await readdir(dir)).toEqual(['settings.json']);
    expect(await readFile(join(dir, 'settings.json'), 'utf8')).toBe('{\n  "mine": 1\n}\n');
  });
});
