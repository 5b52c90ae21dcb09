import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from '../../../test/cli-capture.js';
import { tempDir } from '../../../test/temp.js';

/**
 * `--agent all` on a project where one agent's folder is a link out of it (issue #34, as a busy
 * user meets it): the run stopped at that agent with "nothing was written", while the agents
 * before it had their configs written and were never reported, and the ones after it were skipped.
 */

async function project() {
  const base = await tempDir('all-agents-');
  const outside = join(base, 'outside');
  const root = join(base, 'proj');
  await mkdir(outside);
  await mkdir(root);
  await writeFile(join(outside, 'keep.txt'), 'mine\n');
  await symlink(outside, join(root, '.qwen'));
  return { base, outside, root, env: { HOME: join(base, 'home') } };
}

describe('--agent all with one agent refused', () => {
  it('hooks install: every other agent installed and said, the refused one in its own line, exit non-zero', async () => {
    const p = await project();
    const r = await captureCli(['hooks', 'install', '--agent', 'all', '--scope', 'project', '--project', p.root], { env: p.env, cwd: p.root, installed: true });
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/rewind-app: Qwen Code: .*\.qwen is a link/);
    for (const name of ['Claude Code', 'Codex CLI', 'Gemini CLI', 'Kilo CLI']) expect(r.out).toContain(`${name}: `);
    expect(await readdir(join(p.root, '.gemini'))).toContain('settings.json');
    expect(await readdir(p.outside)).toEqual(['keep.txt']);
  });

  it('mcp install: the same, with --json naming the refused agent', async () => {
    const p = await project();
    const r = await captureCli(['mcp', 'install', '--agent', 'all', '--scope', 'project', '--json', '--project', p.root], { env: p.env, cwd: p.root, installed: true });
    expect(r.code).not.toBe(0);
    const out = JSON.parse(r.out) as { agent: string; action?: string; error?: { code: string } }[];
    expect(out.find((x) => x.agent === 'qwen')?.error?.code).toBe('UNSAFE_PATH');
    expect(out.find((x) => x.agent === 'gemini')?.action).toBe('added');
    expect(await readdir(p.outside)).toEqual(['keep.txt']);
  });
});
