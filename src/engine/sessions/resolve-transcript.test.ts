import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureCli } from '../../../test/cli-capture.js';
import { tempDir } from '../../../test/temp.js';
import { resolveTranscript } from './resolve-transcript.js';

/**
 * `.agent/rewind/session.json` names the session `back`, `restore --source claude` and their
 * previews work on when none is given. A cloned project can ship it: naming a file outside the
 * agents' folders, `back 1 --in-place --force` rewrote that file (and `back 1` forked beside it),
 * and undo then refused the journal's record of it, so it could not even be put back. Issue #34.
 */

const FIXTURE = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'claude-code-2.1.330', 'home', '.claude', 'projects', '-home-dev-projects-linear', '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl');

async function shipped(prefix: string) {
  const base = await tempDir(prefix);
  const home = join(base, 'home');
  const outside = join(base, 'outside');
  const project = join(base, 'proj');
  await mkdir(join(home, '.claude', 'projects'), { recursive: true });
  await mkdir(outside);
  await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
  const victim = join(outside, 'victim.jsonl');
  await cp(FIXTURE, victim);
  await writeFile(join(project, '.agent', 'rewind', 'session.json'), JSON.stringify({ transcript_path: victim, session_id: '2ea8980a-26fe-4928-aab5-4ebf6074b664', agent: 'claude', cwd: project }));
  return { base, home, outside, project, victim, env: { HOME: home } };
}

describe('a session.json the project ships', () => {
  it('naming a file outside the agents’ folders is refused in one line; back --in-place leaves that file as it was', async () => {
    const s = await shipped('pointer-outside-');
    const before = await readFile(s.victim);
    await expect(resolveTranscript({ project: s.project, cwd: s.project, env: s.env })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    const inPlace = await captureCli(['back', '1', '--in-place', '--force', '--project', s.project], { env: s.env, cwd: s.project });
    const fork = await captureCli(['back', '1', '--force', '--project', s.project], { env: s.env, cwd: s.project });
    expect(inPlace.code).not.toBe(0);
    expect(fork.code).not.toBe(0);
    expect(inPlace.err.trim().split('\n').pop()).toMatch(/outside the allowed folders/);
    expect((await readFile(s.victim)).equals(before)).toBe(true);
    expect(await readdir(s.outside)).toEqual(['victim.jsonl']);
  });

  it("naming a session in the agent's own folder is still taken", async () => {
    const s = await shipped('pointer-inside-');
    const inside = join(s.home, '.claude', 'projects', '-p', 'x.jsonl');
    await mkdir(join(inside, '..'), { recursive: true });
    await cp(FIXTURE, inside);
    await writeFile(join(s.project, '.agent', 'rewind', 'session.json'), JSON.stringify({ transcript_path: inside }));
    expect(await resolveTranscript({ project: s.project, cwd: s.project, env: s.env })).toMatchObject({ path: inside, source: 'session.json' });
  });

  it.skipIf(process.platform === 'win32')('a FIFO as session.json is read as none, at once', async () => {
    const s = await shipped('pointer-fifo-');
    const pointer = join(s.project, '.agent', 'rewind', 'session.json');
    execFileSync('rm', [pointer]);
    execFileSync('mkfifo', [pointer]);
    const t = Date.now();
    await expect(resolveTranscript({ project: s.project, cwd: s.project, env: s.env })).rejects.toMatchObject({ code: 'NO_TRANSCRIPT' });
    expect(Date.now() - t).toBeLessThan(3_000);
  }, 15_000);
});
