import { mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CODEX_SYNTHETIC, LINEAR, tempDir } from '../../test/fixtures.js';
import { captureCli } from '../../test/cli-capture.js';

// Without --project, a rewind keeps its journal in the session's folder only when that folder is
// already a Rewind project or the user is working in it: a transcript can name any existing
// folder as its cwd, and that folder must not get `.agent/rewind/` created in it.

const made: string[] = [];
afterAll(() => Promise.all(made.map((d) => rm(d, { recursive: true, force: true }))));

const cli = (argv: string[], cwd: string, env: NodeJS.ProcessEnv) => captureCli(argv, { env: { REWIND_NO_FORWARD: '1', ...env }, cwd });

const exists = (p: string) => stat(p).then(() => true, () => false);

/** A copy of a fixture whose recorded cwd is `folder`. */
async function sessionIn(folder: string, fixture: string, recorded: string, name: string): Promise<string> {
  const dir = await tempDir('rewind-jh-');
  made.push(dir);
  const file = join(dir, name);
  await writeFile(file, (await readFile(fixture, 'utf8')).split(recorded).join(folder));
  const past = new Date(Date.now() - 3600_000);
  await utimes(file, past, past);
  return file;
}

describe('back without --project', () => {
  it.each([
    ['Claude Code', LINEAR, '/home/dev/projects/linear', '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl'],
    ['Codex', CODEX_SYNTHETIC, '/workspace/synthetic-project', 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl'],
  ])('%s: never creates .agent/rewind/ in a folder the transcript only names; does in the one the user works in', async (_agent, fixture, recorded, name) => {
    const stranger = await tempDir('rewind-stranger-');
    made.push(stranger);
    expect((await readFile(fixture, 'utf8')).includes(recorded)).toBe(true);
    const file = await sessionIn(stranger, fixture, recorded, name);
    const elsewhere = await tempDir('rewind-elsewhere-');
    made.push(elsewhere);
    const env = { CLAUDE_CONFIG_DIR: join(elsewhere, 'no-claude'), CODEX_HOME: join(elsewhere, 'no-codex') };
    const fork = await cli(['back', '--transcript', file], elsewhere, env);
    expect(fork.code, fork.err).toBe(0);
    expect(await exists(join(stranger, '.agent'))).toBe(false);
    expect(fork.err).toMatch(/not in an undo journal/);
    const inPlace = await cli(['back', '--transcript', file, '--in-place'], elsewhere, env);
    expect(inPlace.code).toBe(2);
    expect(inPlace.err).toMatch(/pass --project DIR/);
    expect(await exists(join(stranger, '.agent'))).toBe(false);
    // From inside the session's folder: the user's project, journaled there (where undo looks).
    await mkdir(join(stranger, 'sub'), { recursive: true });
    const here = await cli(['back', '--transcript', file], join(stranger, 'sub'), env);
    expect(here.code, here.err).toBe(0);
    expect(await exists(join(stranger, '.agent', 'rewind'))).toBe(true);
    expect(here.err).toContain('Undo with: rewind-app undo');
    expect(here.err).not.toMatch(/not in an undo journal/);
  });
});
