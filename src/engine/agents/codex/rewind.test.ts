import { spawn } from 'node:child_process';
import { cp, mkdir, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { isRewindError } from '../../errors.js';
import { undoLatest } from '../../journal/undo.js';
import { codex } from './adapter.js';
import { findCodexSession, listCodexSessions } from './discover.js';
import { parseRollout } from './rollout.js';
import { rewindRollout } from './rewind.js';

const LINEAR = '01a20831-0a9b-7362-9657-fdd051b67f43';
const RPC_FORK = '01a20831-139a-7673-bbc8-99f840ec37ff';
const REVERTED = '01a20831-1b9e-7022-895f-ab9622012353';
const LINEAR_PROMPTS = ['WRITE notes/a.txt alpha-one', 'WRITE b.txt beta-two', 'BASH echo gamma-three >> notes/a.txt', 'plain question four'];
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function setup(): Promise<{ home: string; project: string }> {
  const home = await tempDir('rewind-codex-rw-');
  await cp(join(FIXTURES, 'codex-0.169'), home, { recursive: true });
  // Recorded long ago: not live.
  const day = join(home, 'sessions', '2026', '11', '23');
  for (const f of await readdir(day)) await utimes(join(day, f), new Date('2026-11-23T12:00:00Z'), new Date('2026-11-23T12:00:00Z'));
  return { home, project: await tempDir('rewind-codex-project-') };
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return isRewindError(e) ? e.code : String(e);
  }
}

describe('Codex rewind', () => {
  it('fork at each prompt: a self-contained rollout under sessions/YYYY/MM/DD with a new v7 id in its name and session_meta, holding exactly the kept prompts', async () => {
    const { home, project } = await setup();
    const path = (await findCodexSession(LINEAR, home))!;
    const before = await readFile(path);
    for (let n = 1; n <= 4; n++) {
      const r = await rewindRollout({ transcriptPath: path, n, mode: 'fork', projectRoot: project });
      expect(r.prompts.map((p) => p.text)).toEqual(LINEAR_PROMPTS.slice(4 - n));
      expect(r.forkSessionId).toMatch(V7);
      expect(r.forkPath).toMatch(new RegExp(`/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${r.forkSessionId}\\.jsonl$`));
      expect(r.forkPath!.startsWith(join(home, 'sessions'))).toBe(true);
      const fork = await parseRollout(r.forkPath!);
      expect(fork.session.id).toBe(r.forkSessionId);
      expect(fork.prompts.map((p) => p.text)).toEqual(LINEAR_PROMPTS.slice(0, 4 - n));
      const first = JSON.parse((await readFile(r.forkPath!, 'utf8')).split('\n')[0]!) as { type: string; payload: Record<string, unknown> };
      expect(first.type).toBe('session_meta');
      expect(first.payload).not.toHaveProperty('forked_from_id');
      expect(first.payload).toHaveProperty('base_instructions');
    }
    expect(await readFile(path)).toEqual(before);
    // Listed, each with the prompts it kept; undone newest first.
    const list = await listCodexSessions({ home });
    expect(list.filter((s) => V7.test(s.id) && !s.id.startsWith('01a20831')).map((s) => s.promptCount).sort()).toEqual([0, 1, 2, 3]);
    const u = await undoLatest(project, { agentRoots: [home] });
    expect(u.summary).toMatch(/^Removed fork /);
  });

  it('a fork of a reference fork carries the prefix it read from its parent', async () => {
    const { home, project } = await setup();
    const path = (await findCodexSession(RPC_FORK, home))!;
    const r = await rewindRollout({ transcriptPath: path, n: 1, mode: 'fork', projectRoot: project });
    expect(r.prompts.map((p) => p.text)).toEqual(['after rpc fork']);
    const fork = await parseRollout(r.forkPath!);
    expect(fork.prompts.map((p) => p.text)).toEqual(LINEAR_PROMPTS.slice(0, 2));
    // Self-contained: nothing in it points at another file.
    expect(await readFile(r.forkPath!, 'utf8')).not.toMatch(/"history_base"|"forked_from_id"/);
  });

  it('in place: backup, the current generation rewritten under the same id and path, undo puts it back', async () => {
    const { home, project } = await setup();
    const path = (await findCodexSession(REVERTED, home))!;
    const before = await readFile(path);
    const dry = await rewindRollout({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project, dryRun: true });
    expect(dry.backupPath).toContain('.agent/rewind/transcript-backup/');
    expect(await readFile(path)).toEqual(before);
    const r = await rewindRollout({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project });
    expect(r.prompts.map((p) => p.text)).toEqual(['after revert']);
    expect(await readFile(r.backupPath!)).toEqual(before);
    const t = await parseRollout(path);
    expect(t.session.id).toBe(REVERTED);
    expect(t.prompts.map((p) => p.text)).toEqual(['WRITE r1.txt rev-one', 'WRITE r2.txt rev-two']);
    expect(await findCodexSession(REVERTED, home)).toBe(path);
    await undoLatest(project, { agentRoots: [home] });
    expect(await readFile(path)).toEqual(before);
  });

  it('refuses: in place while Codex writes, too many prompts, a prompt it lacks, a newer format; nothing written', async () => {
    const { home, project } = await setup();
    const path = (await findCodexSession(LINEAR, home))!;
    // Codex holds the thread (its writer lock), however old the file looks.
    await mkdir(join(home, 'thread-writer-locks'));
    const lock = join(home, 'thread-writer-locks', `${LINEAR}.lock`);
    await writeFile(lock, '');
    // A lock file nobody holds is a crash's leftover, not a writer.
    if (process.platform !== 'win32') expect(await codex.isLive(path)).toBe(false);
    // Held by a live process (Windows: LockFileEx cannot be probed, the file itself counts).
    if (process.platform !== 'win32') {
      const holder = spawn('perl', ['-e', '$| = 1; use Fcntl ":flock"; open(F, "<", $ARGV[0]) or die; flock(F, LOCK_EX) or die; print "held\\n"; sleep 30', lock], { stdio: ['ignore', 'pipe', 'ignore'] });
      await new Promise((r) => holder.stdout.once('data', r));
      expect(await code(rewindRollout({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project }))).toBe('TRANSCRIPT_LIVE');
      expect(await codex.isLive(path)).toBe(true);
      await new Promise((r) => (holder.once('exit', r), holder.kill('SIGKILL')));
    }
    await rm(lock);
    expect(await codex.isLive(path)).toBe(false);
    await utimes(path, new Date(), new Date());
    expect(await code(rewindRollout({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project }))).toBe('TRANSCRIPT_LIVE');
    expect(await code(rewindRollout({ transcriptPath: path, n: 9, mode: 'fork', projectRoot: project }))).toBe('NOT_ENOUGH_PROMPTS');
    expect(await code(rewindRollout({ transcriptPath: path, promptUuid: 'codex:1', mode: 'fork', projectRoot: project }))).toBe('NOT_FOUND');
    const future = join(home, 'sessions', '2026', '11', '23', `rollout-2026-11-23T11-40-00-01a20831-9999-7000-8000-000000000000.jsonl`);
    const text = (await readFile(path, 'utf8')).replace('"cli_version":"0.169.0"', '"cli_version":"0.200.1"').replaceAll(LINEAR, basename(future).slice(28, 64));
    await writeFile(future, text);
    expect(await code(rewindRollout({ transcriptPath: future, n: 1, mode: 'fork', projectRoot: project }))).toBe('UNSUPPORTED');
    expect((await readdir(join(home, 'sessions', '2026', '11', '23'))).length).toBe(7);
    expect(await readdir(project)).toEqual([]);
  });

  it("a reference fork whose parent is not here: its own prompts are shown, with a reason it is read only", async () => {
    const { home, project } = await setup();
    await rm(join(home, 'sessions', '2026', '11', '23', `rollout-2026-11-23T11-36-01-${LINEAR}.jsonl`));
    const path = (await findCodexSession(RPC_FORK, home))!;
    const t = await parseRollout(path);
    expect(t.prompts.map((p) => p.text)).toEqual(['after rpc fork']);
    expect(t.issues[0]!.reason).toMatch(/continues thread 01a20831-0a9b-7362-9657-fdd051b67f43, whose rollout is not here/);
    expect(await codex.readOnlyReason!(path)).toMatch(/whose rollout is not on this machine/);
    expect(await code(rewindRollout({ transcriptPath: path, n: 1, mode: 'fork', projectRoot: project }))).toBe('UNSUPPORTED');
  });
});
