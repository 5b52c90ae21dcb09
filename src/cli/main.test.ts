import { cp, mkdir, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRANCHED, CODEX_SYNTHETIC, FIXTURES, LINEAR, copyClaudeHome, inCopy, tempDir } from '../../test/fixtures.js';
import { encodeProjectDir } from '../engine/agents/claude/paths.js';
import { captureCli } from '../../test/cli-capture.js';

const cli = (argv: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) => captureCli(argv, opts);

const past = new Date(Date.now() - 3600_000);

async function home() {
  const root = await copyClaudeHome();
  const linear = inCopy(root, LINEAR);
  const branched = inCopy(root, BRANCHED);
  await utimes(linear, past, past);
  await utimes(branched, past, past);
  return { root, linear, branched, env: { CLAUDE_CONFIG_DIR: root, HOME: '/nonexistent-home', REWIND_CACHE_DIR: join(root, '..', 'cache') } };
}

/**
 * The linear session as if recorded in `cwd`: its recorded folder (`/home/dev/projects/linear`,
 * which may or may not exist on this machine) replaced, and the file moved to `cwd`'s projects
 * folder. The test decides whether `cwd` exists.
 */
async function linearRecordedIn(h: Awaited<ReturnType<typeof home>>, cwd: string): Promise<string> {
  const dir = join(h.root, 'projects', encodeProjectDir(cwd));
  await mkdir(dir, { recursive: true });
  const transcript = join(dir, basename(h.linear));
  await writeFile(transcript, (await readFile(h.linear, 'utf8')).split('/home/dev/projects/linear').join(cwd));
  await rm(h.linear);
  await utimes(transcript, past, past);
  return transcript;
}

describe('usage errors exit 2 with one line', () => {
  it.each([[['back', '0']], [['back', 'x']], [['back', '1.5']], [['back', '1', '2']], [['frobnicate']], [['back', '--nope']], [['back', '--transcript']], [['sessions', '--to', 'x']], [['timeline', '--force']], [['hooks', 'install', '--agnt', 'codex']], [['hooks', 'install', '--agent', 'nope']], [['checkpoint', '--source', 'x']]])('%j', async (argv) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^rewind-app: /);
    expect(r.out).toBe('');
  });
});

it('hook never exits non-zero, whatever its options or input: the reason goes to the project\'s hook.log', async () => {
  const project = await tempDir();
  try {
    const r = await cli(['hook', '--agent', 'nope', '--weird'], { env: { REWIND_PROJECT_ROOT: project } });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(await readFile(join(project, '.agent', 'rewind', 'hook.log'), 'utf8')).toMatch(/nope hook failed/);
  } finally {
    await rm(project, { recursive: true, force: true });
  }
});

describe('sessions and timeline', () => {
  it('sessions --json lists the three sessions newest first with prompt counts', async () => {
    const h = await home();
    const r = await cli(['sessions', '--json'], { env: h.env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.sessions).toHaveLength(3);
    expect(doc.sessions[doc.sessions.length - 1].id).not.toBe(doc.sessions[0].id);
    const byId = Object.fromEntries(doc.sessions.map((s: { id: string }) => [s.id, s]));
    expect(byId['9ee005d2-71bf-404d-813f-f64902d8df5f']).toMatchObject({ agent: 'claude', promptCount: 6, cwd: '/home/dev/projects/branched', title: 'WRITE a.txt version one' });
    expect(byId['ec33f68b-d266-42d6-b76a-6c2b9bb6c0ae'].promptCount).toBe(3);
    // The branched and linear files were made older than the subagent one.
    expect(doc.sessions[0].id).toBe('ec33f68b-d266-42d6-b76a-6c2b9bb6c0ae');
  });

  it('timeline --json by id prefix marks the dead branch', async () => {
    const h = await home();
    const r = await cli(['timeline', '9ee0', '--json'], { env: h.env });
    expect(r.code).toBe(0);
    const t = JSON.parse(r.out);
    expect(t.session).toMatchObject({ id: '9ee005d2-71bf-404d-813f-f64902d8df5f', agent: 'claude', cwd: '/home/dev/projects/branched', transcriptPath: h.branched });
    expect(t.prompts.map((p: { active: boolean }) => p.active)).toEqual([true, true, false, false, true, true]);
    expect(t.prompts[0]).toMatchObject({ uuid: expect.any(String), text: 'WRITE a.txt version one', timestamp: expect.any(String), byteOffset: expect.any(Number) });
  });

  it('timeline defaults to the newest session of the current directory', async () => {
    const h = await home();
    const project = await tempDir('rewind-cli-project-');
    await linearRecordedIn(h, project);
    const r = await cli(['timeline'], { env: h.env, cwd: project });
    expect(r.code).toBe(0);
    expect(r.out).toContain('EDIT notes.md alpha gamma');
  });

  it('bad input: unknown session, missing config dir, empty and binary files', async () => {
    const h = await home();
    const dir = await tempDir();
    await writeFile(join(dir, 'empty.jsonl'), '');
    await writeFile(join(dir, 'bin.jsonl'), Buffer.from([0, 1, 2, 3, 10]));
    for (const [argv, env, pattern] of [
      [['timeline', 'ffffffff'], h.env, /no session "ffffffff"/],
      // Its own home and cache: the real ~/.cache/rewind is shared with every other run on the machine.
      [['sessions'], { CLAUDE_CONFIG_DIR: join(dir, 'missing'), HOME: '/nonexistent-home', REWIND_CACHE_DIR: join(dir, 'cache') }, /Claude config dir not found/],
      [['timeline', join(dir, 'empty.jsonl')], h.env, /empty/],
      [['timeline', join(dir, 'bin.jsonl')], h.env, /binary/],
    ] as const) {
      const r = await cli([...argv], { env: { ...env } });
      expect(r.code, String(argv)).not.toBe(0);
      expect(r.err.trim().split('\n'), String(argv)).toHaveLength(1);
      expect(r.err).toMatch(pattern);
      expect(r.err).not.toMatch(/\bat .*:\d+:\d+/);
    }
  });
});

describe('Codex CLI sessions', () => {
  it("sessions lists them beside Claude's, timeline reads them, back forks them for `codex resume`", async () => {
    const h = await home();
    const codex = await tempDir('rewind-cli-codex-');
    const rollout = join(codex, 'sessions', '2026', '01', '02', 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
    await mkdir(join(rollout, '..'), { recursive: true });
    // Recorded in a folder that is not on this machine (whatever this machine has at /workspace).
    await writeFile(rollout, (await readFile(CODEX_SYNTHETIC, 'utf8')).split('/workspace/synthetic-project').join(join(codex, 'gone')));
    const env = { ...h.env, CODEX_HOME: codex };
    const list = JSON.parse((await cli(['sessions', '--json'], { env })).out).sessions as { agent: string }[];
    expect(list.map((s) => s.agent).sort()).toEqual(['claude', 'claude', 'claude', 'codex']);
    expect((await cli(['sessions'], { env })).out).toMatch(/11111111-1111-4111-8111-111111111111 .*List the synthetic files\. {2}\[Codex\]/);
    const t = await cli(['timeline', '1111'], { env });
    expect(t.code, t.err).toBe(0);
    expect(t.out).toContain('Codex CLI 0.0.0-test');
    expect(t.out).toMatch(/1 prompt on the live path/);
    const back = await cli(['back', '--transcript', rollout], { env });
    expect(back.code, back.err).toBe(0);
    const id = /^Fork created: ([0-9a-f-]{36})$/m.exec(back.out)![1]!;
    expect(back.err).toContain(`Resume it with: codex resume ${id}`);
    expect(back.err).toContain('List the synthetic files.');
    const live = await cli(['back', '--transcript', rollout, '--in-place'], { env });
    expect(live.code, live.err).toBe(5);
    await utimes(rollout, new Date('2026-01-02T04:00:00Z'), new Date('2026-01-02T04:00:00Z'));
    const inPlace = await cli(['back', '--transcript', rollout, '--in-place'], { env });
    expect(inPlace.code, inPlace.err).toBe(2);
    expect(inPlace.err.trim().split('\n').pop()).toMatch(/^rewind-app: no project folder for the backup: pass --project DIR$/);
    // --to: a prompt by its number on the live path, in a real 0.169 session (and its reference fork).
    await cp(join(FIXTURES, 'codex-0.169', 'sessions'), join(codex, 'sessions'), { recursive: true });
    const forkFile = (await readdir(join(codex, 'sessions', '2026', '11', '23'))).find((f) => f.includes('01a20831-139a'))!;
    const dry = await cli(['back', '--to', '#2', '--dry-run', '--json', '--transcript', join(codex, 'sessions', '2026', '11', '23', forkFile)], { env });
    expect(dry.code, dry.err).toBe(0);
    expect((JSON.parse(dry.out) as { prompts: { text: string }[] }).prompts.map((p) => p.text)).toEqual(['WRITE b.txt beta-two', 'after rpc fork']);
    const missing = await cli(['back', '--to', '#9', '--transcript', join(codex, 'sessions', '2026', '11', '23', forkFile)], { env });
    expect(missing.err.trim().split('\n').pop()).toBe('rewind-app: no prompt #9 on the live path: it has 3 prompts (#1 to #3)');
    // Only Codex data, no Claude config dir: still listed.
    const onlyCodex = await cli(['sessions', '--json'], { env: { HOME: '/nonexistent-home', CLAUDE_CONFIG_DIR: join(codex, 'no-claude'), CODEX_HOME: codex } });
    expect(onlyCodex.code, onlyCodex.err).toBe(0);
    // The session, the fork made above and the five 0.169 threads (the reverted one once).
    expect(JSON.parse(onlyCodex.out).sessions).toHaveLength(7);
  });
});

describe('back', () => {
  it('forks by default: "Fork created: <id>" on stdout, the reverted prompt on stderr', async () => {
    const h = await home();
    const r = await cli(['back', '--transcript', h.linear], { env: h.env });
    expect(r.code).toBe(0);
    const m = /^Fork created: ([0-9a-f-]{36})$/m.exec(r.out);
    expect(m).not.toBeNull();
    expect(r.err).toContain('WRITE b.txt bee');
    expect(r.err).toContain(`Transcript: ${h.linear} (--transcript)`);
    const fork = await readFile(join(h.linear, '..', `${m![1]}.jsonl`), 'utf8');
    expect(fork).toContain('EDIT notes.md alpha gamma');
  });

  it('a fork is listed as a fork of its session, and not as live though just written', async () => {
    const h = await home();
    const project = await tempDir('rewind-cli-project-');
    const dir = join(h.root, 'projects', encodeProjectDir(project));
    await mkdir(dir, { recursive: true });
    const transcript = join(dir, '5e55a0c1-0000-4000-8000-000000000001.jsonl');
    // The linear session, moved into a real project folder.
    await writeFile(transcript, (await readFile(h.linear, 'utf8')).split('/home/dev/projects/linear').join(project));
    await utimes(transcript, past, past);
    const r = await cli(['back', '--transcript', transcript], { env: h.env, cwd: project });
    expect(r.code, r.err).toBe(0);
    const forkId = /Fork created: (\S+)/.exec(r.out)![1]!;
    const list = JSON.parse((await cli(['sessions', '--json', '--project', project], { env: h.env })).out).sessions as { id: string; forkOf: string | null; live: boolean }[];
    expect(list.find((s) => s.id === forkId)).toMatchObject({ forkOf: '2ea8980a-26fe-4928-aab5-4ebf6074b664', live: false });
    expect((await cli(['sessions', '--project', project], { env: h.env })).out).toMatch(new RegExp(`^  ${forkId} .*\\(fork of 2ea8980a\\)$`, 'm'));
  });

  it('--json prints one object', async () => {
    const h = await home();
    const r = await cli(['back', '2', '--json', '--dry-run', '--transcript', h.branched], { env: h.env });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({ transcript: h.branched, sessionId: '9ee005d2-71bf-404d-813f-f64902d8df5f', mode: 'fork', dryRun: true, forkSessionId: null, checkpoint: null });
    expect(doc.prompts.map((p: { text: string }) => p.text)).toEqual(['WRITE d.txt branch two', 'WRITE e.txt after branch']);
    expect(doc.boundaryOffset).toBeGreaterThan(0);
  });

  it('exit 3 when there are fewer prompts, exit 4 when no transcript is found', async () => {
    const h = await home();
    const few = await cli(['back', '9', '--transcript', h.linear], { env: h.env });
    expect(few.code).toBe(3);
    const cwd = await tempDir();
    const none = await cli(['back'], { env: h.env, cwd });
    expect(none.code).toBe(4);
    expect(none.err).toMatch(/no transcript found/);
    const missing = await cli(['back', '--transcript', join(cwd, 'nope.jsonl')], { env: h.env, cwd });
    expect(missing.code).toBe(4);
  });

  it('exit 5 for an in-place rewrite of a live transcript', async () => {
    const h = await home();
    await utimes(h.linear, new Date(), new Date());
    const project = await tempDir();
    const r = await cli(['back', '--in-place', '--transcript', h.linear, '--project', project], { env: h.env });
    expect(r.code).toBe(5);
    expect(r.err).toMatch(/it may still be running\. Stop it first/);
  });

  it('finds the transcript through REWIND_TRANSCRIPT_PATH, then session.json, then the cwd', async () => {
    const h = await home();
    const viaEnv = await cli(['back', '--dry-run'], { env: { ...h.env, REWIND_TRANSCRIPT_PATH: h.linear } });
    expect(viaEnv.err).toContain('(REWIND_TRANSCRIPT_PATH)');
    const project = await tempDir();
    await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
    await writeFile(join(project, '.agent', 'rewind', 'session.json'), JSON.stringify({ transcript_path: h.branched, session_id: 'x', agent: 'claude' }));
    const sub = join(project, 'src');
    await mkdir(sub);
    const viaPointer = await cli(['back', '--dry-run', '--json'], { env: h.env, cwd: sub });
    expect(viaPointer.err).toContain(`${h.branched} (session.json)`);
    expect(JSON.parse(viaPointer.out).prompts[0].text).toBe('WRITE e.txt after branch');
    await writeFile(join(project, '.agent', 'rewind', 'session.json'), '{"nope": 1}');
    const broken = await cli(['back', '--dry-run'], { env: h.env, cwd: sub });
    expect(broken.code).toBe(4);
    expect(broken.err).toMatch(/session.json is not valid/);
    const recorded = await tempDir('rewind-cli-project-');
    const linear = await linearRecordedIn(h, recorded);
    const viaCwd = await cli(['back', '--dry-run'], { env: h.env, cwd: recorded });
    expect(viaCwd.err).toContain(`${linear} (newest session for this directory)`);
  });

  it('--in-place then undo, through the CLI', async () => {
    const h = await home();
    const project = await tempDir();
    const original = await readFile(h.linear);
    const r = await cli(['back', '--in-place', '--transcript', h.linear, '--project', project], { env: h.env });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Chat rewritten in-place\nBackup: .*transcript-backup.*\.jsonl\n$/);
    const u = await cli(['undo', '--project', project], { env: h.env });
    expect(u.code).toBe(0);
    expect((await readFile(h.linear)).equals(original)).toBe(true);
    const again = await cli(['undo', '--project', project], { env: h.env });
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/nothing to undo/);
  });

  it('--both without any checkpoint, the recorded folder elsewhere: the code is unchanged (outside the project), the chat part done', async () => {
    const h = await home();
    const recorded = await tempDir('rewind-cli-recorded-');
    const transcript = await linearRecordedIn(h, recorded);
    const project = await tempDir();
    const r = await cli(['back', '--both', '--transcript', transcript, '--project', project], { env: h.env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/Fork created/);
    expect(r.err).toMatch(/Code: Claude's own file history/);
    expect(r.err).toMatch(/outside the project/);
    expect(await readdir(recorded)).toEqual([]);
  });

  it('--both without any checkpoint, the recorded folder gone: the project given stands in for it', async () => {
    const h = await home();
    const transcript = await linearRecordedIn(h, join(await tempDir(), 'gone'));
    const project = await tempDir();
    const r = await cli(['back', '--both', '--transcript', transcript, '--project', project], { env: h.env });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/Fork created/);
    expect(r.err).toMatch(/Code: Claude's own file history/);
    expect(r.err).not.toMatch(/outside the project/);
    expect(await readdir(project)).toContain('a.txt');
  });
});

describe('a long-lived process (the app runs forwarded commands)', () => {
  it('parses the same way on the 200th call as on the first', async () => {
    for (let i = 0; i < 200; i++) await cli(['--version']);
    const r = await cli(['back', 'x']);
    expect(r.code).toBe(2);
  });
});
