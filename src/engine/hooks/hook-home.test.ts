import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { handleAgentHook } from './handle-hook.js';

/**
 * Hooks installed for the user run in whatever folder the agent does; the home folder is no
 * project. The guard compared the payload's cwd with $HOME as written: with $HOME through a link
 * (or the cwd through one: an agent gives getcwd(), a real path), the hook checkpointed the whole
 * home folder, ~/.ssh copied into ~/.agent/rewind/objects. Probed for issue #34.
 */

async function homes() {
  const base = await tempDir('hook-home-');
  const real = join(base, 'realhome');
  await mkdir(join(real, '.ssh'), { recursive: true });
  await writeFile(join(real, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  const link = join(base, 'homelink');
  await symlink(real, link);
  return { base, real, link };
}

const prompt = (cwd: string) => ({ hook_event_name: 'UserPromptSubmit', session_id: 's', cwd, prompt: 'p', prompt_id: 'p1' });

describe.skipIf(process.platform === 'win32')('the home folder is never checkpointed by a hook', () => {
  it('$HOME through a link, the agent in its real path', async () => {
    const h = await homes();
    expect(await handleAgentHook('claude', prompt(h.real), { HOME: h.link })).toMatch(/not a project folder/);
    expect(await readdir(h.real)).toEqual(['.ssh']);
  });

  it('the agent in a link to $HOME', async () => {
    const h = await homes();
    expect(await handleAgentHook('claude', prompt(`${h.link}/`), { HOME: h.real })).toMatch(/not a project folder/);
    expect(await readdir(h.real)).toEqual(['.ssh']);
  });

  it('a folder holding the home folder (/home, /Users) is no project either; a project inside home is', async () => {
    const h = await homes();
    expect(await handleAgentHook('claude', prompt(h.base), { HOME: h.real })).toMatch(/not a project folder/);
    expect(await readdir(h.base)).not.toContain('.agent');
    const project = join(h.real, 'code', 'app');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'a.txt'), 'a\n');
    expect(await handleAgentHook('claude', prompt(project), { HOME: h.link })).toMatch(/checkpoint/);
    expect(await readdir(join(project, '.agent', 'rewind'))).toContain('checkpoints');
  });
});

describe('a payload whose cwd is not an absolute path', () => {
  for (const cwd of ['..', '../../..', '.', 'proj', 42]) {
    it(`cwd ${JSON.stringify(cwd)}: no project, no store made where the hook runs`, async () => {
      const base = await tempDir('hook-relcwd-');
      const project = join(base, 'a', 'b', 'c');
      await mkdir(project, { recursive: true });
      const here = process.cwd();
      process.chdir(project);
      try {
        expect(await handleAgentHook('claude', { ...prompt('x'), cwd } as never, { HOME: join(base, 'home') })).toBe('no project dir');
      } finally {
        process.chdir(here);
      }
      for (const d of [base, join(base, 'a'), join(base, 'a', 'b'), project]) expect(await readdir(d)).not.toContain('.agent');
    });
  }
});
