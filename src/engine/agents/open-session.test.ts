import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import { bootId, pidDomain, pidNamespaceIno, pidState, procStartOf } from '../io/process-alive.js';
import { flockHolderIn, lockHolder } from '../io/lock-probe.js';
import { parseClaudeMarker } from './claude/open.js';
import { parseQwenMarker, qwenOpenSessions } from './qwen/open.js';
import { agentProcessMarkers } from './agent-processes.js';
import { geminiOpenSessions, isGeminiArgv } from './gemini/open.js';
import { isDroidArgv } from './droid/open.js';
import { ADAPTERS } from './registry.js';
import { copilotOpenSessions } from './copilot/open.js';
import { insideAgent, openStateOf, refuseRestoreWhileBusy } from './open-session.js';
import type { ProcessInfo } from '../io/process-list.js';

const linux = process.platform === 'linux';
const kids: ChildProcess[] = [];
afterAll(() => {
  for (const k of kids) if (k.exitCode === null && k.signalCode === null) k.kill('SIGKILL');
});

/** A real process to mark as an agent's: its pid and its start time as the agents record it. */
async function liveChild(...argv: string[]): Promise<ChildProcess> {
  const k = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ...argv], { stdio: 'ignore' });
  kids.push(k);
  await new Promise((r) => k.once('spawn', r));
  return k;
}

async function killed(k: ChildProcess): Promise<void> {
  const done = new Promise((r) => k.once('exit', r));
  k.kill('SIGKILL');
  await done;
}

const CLAUDE_ID = '0b1c7d3e-8a6e-4b9e-9d47-3f0a1c2b4e55';

function claudeMarker(pid: number, procStart: string | null, extra: Record<string, unknown> = {}) {
  return JSON.stringify({ pid, sessionId: CLAUDE_ID, cwd: '/p', startedAt: 1_790_000_000_000, procStart, version: '2.1.330', kind: 'interactive', entrypoint: 'cli', pidDomain: pidDomain(), status: 'idle', updatedAt: 1_790_000_000_500, ...extra });
}

async function claudeRoot(): Promise<{ root: string; path: string }> {
  const root = await tempDir('open-claude-');
  const dir = join(root, 'projects', '-p');
  await mkdir(dir, { recursive: true });
  await mkdir(join(root, 'sessions'), { recursive: true });
  const path = join(dir, `${CLAUDE_ID}.jsonl`);
  await writeFile(path, '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"x","message":{"role":"user","content":"hi"},"cwd":"/p","timestamp":"2026-11-27T00:00:00.000Z"}\n');
  return { root, path };
}

describe('marker parsing', () => {
  it("reads Claude Code's sessions/<pid>.json: id, status, start time, pid domain", () => {
    const r = parseClaudeMarker(claudeMarker(4242, '123456', { status: 'busy', pidDomain: 'linux:abc:pid:[1]' }))!;
    expect(r).toMatchObject({ pid: 4242, sessionId: CLAUDE_ID, procStart: '123456', pidDomain: 'linux:abc:pid:[1]', status: 'busy', cwd: '/p' });
    expect(parseClaudeMarker('{"pid":"x"}')).toBeNull();
    expect(parseClaudeMarker('not json')).toBeNull();
    expect(parseClaudeMarker(JSON.stringify({ pid: 1, sessionId: 's' }))!.status).toBe('unknown');
  });

  it("reads Qwen Code's sessions/<pid>.json (procStart <boot_id>:<ticks>, no status)", () => {
    const r = parseQwenMarker(JSON.stringify({ schemaVersion: 1, pid: 77, procStart: 'b00t:991', pidNs: 'pid:[1]', sessionId: 'q1', cwd: '/w', startedAt: 5, kind: 'tui' }))!;
    expect(r).toMatchObject({ pid: 77, sessionId: 'q1', procStart: 'b00t:991', status: 'unknown', pidDomain: null });
  });

  it('finds the holder of a FLOCK in /proc/locks by inode (the device too when it matches)', () => {
    const locks = '1: POSIX  ADVISORY  WRITE 7309 fe:00:402116 0 EOF\n2: FLOCK  ADVISORY  WRITE 9826 fe:00:2146885 0 EOF\n3: -> FLOCK  ADVISORY  WRITE 111 fe:00:2146885 0 EOF\n';
    expect(flockHolderIn(locks, 2146885, 'fe:00')).toBe(9826);
    expect(flockHolderIn(locks, 2146885, '00:2f')).toBe(9826);
    expect(flockHolderIn(locks, 402116)).toBeNull();
  });

  it('tells a Gemini TUI and a Droid TUI by argv, reports the writing child, and the id only from --resume', () => {
    const procs: ProcessInfo[] = [
      { pid: 10, ppid: 1, argv: ['node', '/x/bin/gemini', '--resume', '6f1d2f0e-1111-4222-8333-944455556666'], cwd: '/proj' },
      { pid: 11, ppid: 10, argv: ['/usr/bin/node', '--max-old-space-size=4096', '/x/bundle/gemini.js', '--resume', '6f1d2f0e-1111-4222-8333-944455556666'], cwd: '/proj' },
    ];
    expect(procs.every((p) => isGeminiArgv(p.argv))).toBe(true);
    expect(isGeminiArgv(['node', 'vite'])).toBe(false);
    const m = agentProcessMarkers(isGeminiArgv, (p) => p.argv.some((a) => a.startsWith('--max-old-space-size')), procs);
    expect(m).toEqual([{ sessionId: '6f1d2f0e-1111-4222-8333-944455556666', cwd: '/proj', pid: 11, status: 'unknown', since: null }]);
    const droid: ProcessInfo[] = [
      { pid: 20, ppid: 1, argv: ['/h/.local/bin/droid'], cwd: '/d' },
      { pid: 21, ppid: 20, argv: ['/h/.local/bin/droid', 'exec', '--input-format', 'stream-jsonrpc', '--output-format', 'stream-jsonrpc'], cwd: '/d' },
    ];
    expect(droid.every((p) => isDroidArgv(p.argv))).toBe(true);
    expect(agentProcessMarkers(isDroidArgv, (p) => p.argv.includes('exec'), droid)).toEqual([{ sessionId: null, cwd: '/d', pid: 21, status: 'unknown', since: null }]);
  });
});

describe.runIf(linux)('liveness of a marked process (Linux: /proc start time, pid domain)', () => {
  it('live with its start time, reused with another, gone after kill -9', async () => {
    const k = await liveChild();
    const start = procStartOf(k.pid!)!;
    expect(start).toMatch(/^\d+$/);
    expect(pidState(k.pid!, start)).toBe('alive');
    expect(pidState(k.pid!, String(Number(start) - 1))).toBe('reused');
    await killed(k);
    expect(pidState(k.pid!, start)).toBe('gone');
  });

  it('Claude Code: a live TUI marker opens its session (idle/busy); reused pid, other pid domain or kill -9 make it stale', async () => {
    const { root, path } = await claudeRoot();
    const k = await liveChild();
    const marker = join(root, 'sessions', `${k.pid}.json`);
    const claude = ADAPTERS.claude;
    await writeFile(marker, claudeMarker(k.pid!, procStartOf(k.pid!), { status: 'busy' }));
    expect(await openStateOf(claude, path, root)).toEqual({ agent: 'claude', pid: k.pid, status: 'busy', since: new Date(1_790_000_000_000).toISOString(), exact: true });
    await writeFile(marker, claudeMarker(k.pid!, '1'));
    expect(await openStateOf(claude, path, root)).toBeNull();
    await writeFile(marker, claudeMarker(k.pid!, procStartOf(k.pid!), { pidDomain: 'linux:another-machine:pid:[4026531836]' }));
    expect(await openStateOf(claude, path, root)).toBeNull();
    await writeFile(marker, claudeMarker(k.pid!, procStartOf(k.pid!)));
    expect((await openStateOf(claude, path, root))?.status).toBe('idle');
    await killed(k);
    expect(await openStateOf(claude, path, root)).toBeNull();
  });

  it('Qwen Code: the registry marker with <boot_id>:<ticks> and pidNs; a reused pid (other ticks, other boot), another pid namespace or a dead pid is stale', async () => {
    const root = await tempDir('open-qwen-');
    const id = 'b2f4c1de-0c43-4a5e-9a1b-1c2d3e4f5a6b';
    const chats = join(root, 'projects', '-p', 'chats');
    await mkdir(chats, { recursive: true });
    await mkdir(join(root, 'sessions'), { recursive: true });
    const path = join(chats, `${id}.jsonl`);
    await writeFile(path, '');
    const k = await liveChild();
    const marker = join(root, 'sessions', `${k.pid}.json`);
    const rec = (procStart: string, pidNs: number | null = pidNamespaceIno()) => JSON.stringify({ schemaVersion: 1, pid: k.pid, procStart, pidNs, sessionId: id, cwd: '/p', startedAt: 1, kind: 'tui' });
    const live = `${bootId()}:${procStartOf(k.pid!)}`;
    await writeFile(marker, rec(live));
    expect(await openStateOf(ADAPTERS.qwen, path, root)).toMatchObject({ agent: 'qwen', pid: k.pid, status: 'unknown', exact: true });
    await writeFile(marker, rec(`other-boot:${procStartOf(k.pid!)}`));
    expect(await openStateOf(ADAPTERS.qwen, path, root)).toBeNull();
    // The pid now another process: started at another tick.
    await writeFile(marker, rec(`${bootId()}:${Number(procStartOf(k.pid!)) - 1}`));
    expect(await openStateOf(ADAPTERS.qwen, path, root)).toBeNull();
    // Written in another pid namespace (a container sharing the home): its pid is not ours to check.
    await writeFile(marker, rec(live, pidNamespaceIno()! + 1));
    expect(await openStateOf(ADAPTERS.qwen, path, root)).toBeNull();
    // Filed under another pid than the one it names: not that process's record.
    await writeFile(marker, rec(live));
    await writeFile(join(root, 'sessions', `${process.pid}.json`), JSON.stringify({ ...JSON.parse(rec(live)), sessionId: 'other' }));
    expect((await qwenOpenSessions(root)).map((m) => m.sessionId)).toEqual([id]);
    await killed(k);
    expect(await openStateOf(ADAPTERS.qwen, path, root)).toBeNull();
    // Where the registry is not written (macOS, Windows): the runtime.json sidecar, whose pid must be a live qwen process.
    const q = await liveChild('qwen');
    const sidecar = path.replace(/\.jsonl$/, '.runtime.json');
    await writeFile(sidecar, JSON.stringify({ schema_version: 1, pid: q.pid, session_id: id, work_dir: '/p', hostname: 'h', started_at: 1_790_000_000, qwen_version: '0.24.4' }));
    expect(await qwenOpenSessions(root, 'darwin')).toEqual([{ sessionId: id, cwd: '/p', pid: q.pid, status: 'unknown', since: new Date(1_790_000_000_000).toISOString() }]);
    expect(await qwenOpenSessions(root, 'linux')).toEqual([]);
    await writeFile(sidecar, JSON.stringify({ pid: (await liveChild()).pid, session_id: id }));
    expect(await qwenOpenSessions(root, 'darwin')).toEqual([]);
    await killed(q);
    await writeFile(sidecar, JSON.stringify({ pid: q.pid, session_id: id }));
    expect(await qwenOpenSessions(root, 'darwin')).toEqual([]);
  });

  it('Codex: a thread lock another process holds (flock) opens the thread; the same file unheld is stale', async () => {
    const home = await tempDir('open-codex-');
    const day = join(home, 'sessions', '2026', '11', '27');
    await mkdir(day, { recursive: true });
    const name = 'rollout-2026-11-23T11-36-09-01a20831-28f2-7353-b880-3f2eae8a98c5.jsonl';
    const path = join(day, name);
    await cp(join(FIXTURES, 'codex-0.169', 'sessions', '2026', '11', '23', name), path);
    const id = (await ADAPTERS.codex.sessionIdOf!(path))!;
    await mkdir(join(home, 'thread-writer-locks'), { recursive: true });
    const lock = join(home, 'thread-writer-locks', `${id}.lock`);
    await writeFile(lock, '');
    expect(await openStateOf(ADAPTERS.codex, path)).toBeNull();
    // A real holder that is itself the process keeping the lock (as Codex's daemon does).
    const holder = spawn('perl', ['-e', 'use Fcntl ":flock"; open(F, "<", $ARGV[0]) or die; flock(F, LOCK_EX) or die; sleep 30', lock], { stdio: 'ignore' });
    kids.push(holder);
    let held = await lockHolder(lock);
    for (let i = 0; i < 50 && !held?.held; i++) {
      await new Promise((r) => setTimeout(r, 50));
      held = await lockHolder(lock);
    }
    expect(held?.held).toBe(true);
    const open = await openStateOf(ADAPTERS.codex, path);
    expect(open).toMatchObject({ agent: 'codex', exact: true });
    expect(open!.pid).toBe(holder.pid);
    // The rollout is never replaced while held: an in-place rewrite is refused, --force or not.
    const before = await readFile(path);
    await expect(ADAPTERS.codex.rewind!({ transcriptPath: path, n: 1, mode: 'in-place', force: true, projectRoot: await tempDir('open-codex-proj-') })).rejects.toMatchObject({ code: 'SESSION_OPEN' });
    expect(await readFile(path)).toEqual(before);
    await killed(holder);
    expect(await openStateOf(ADAPTERS.codex, path)).toBeNull();
  });

  it('Copilot CLI: inuse.<pid>.lock with its .hold flocked is open (the lock decides, whatever pid it names); after kill -9 the free .hold is stale even with the pid alive; without a .hold, a live Copilot pid, not a reused one', async () => {
    const root = await tempDir('open-copilot-');
    const id = '9b53dc0a-a70e-4cda-b8ca-1378323e050b';
    const dir = join(root, 'session-state', id);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'events.jsonl'), '');
    const open = async () => (await copilotOpenSessions(root)).map((m) => [m.sessionId, m.pid]);
    const flockHold = async (hold: string) => {
      await writeFile(hold, '');
      const h = spawn('perl', ['-e', 'use Fcntl ":flock"; open(F, "<", $ARGV[0]) or die; flock(F, LOCK_EX) or die; sleep 30', hold], { stdio: 'ignore' });
      kids.push(h);
      for (let i = 0; i < 100 && !(await lockHolder(hold))?.held; i++) await new Promise((r) => setTimeout(r, 50));
      return h;
    };
    // A stand-in Copilot process (its command line names copilot, as the real one's does).
    const k = await liveChild('copilot');
    await writeFile(join(dir, `inuse.${k.pid}.lock`), String(k.pid));
    const holder = await flockHold(join(dir, `inuse.${k.pid}.hold`));
    expect(await open()).toEqual([[id, k.pid]]);
    // kill -9 leaves both files; nobody holds the .hold: stale, though the pid still runs a copilot.
    await killed(holder);
    expect(await open()).toEqual([]);
    await unlink(join(dir, `inuse.${k.pid}.lock`));
    await unlink(join(dir, `inuse.${k.pid}.hold`));
    // Another pid namespace's Copilot: its pid means nothing here, its lock still holds.
    await writeFile(join(dir, 'inuse.2147483646.lock'), '2147483646');
    const other = await flockHold(join(dir, 'inuse.2147483646.hold'));
    expect(await open()).toEqual([[id, 2147483646]]);
    await killed(other);
    expect(await open()).toEqual([]);
    await unlink(join(dir, 'inuse.2147483646.lock'));
    await unlink(join(dir, 'inuse.2147483646.hold'));
    // No .hold to probe: the pid, alive and a Copilot process.
    await writeFile(join(dir, `inuse.${k.pid}.lock`), String(k.pid));
    expect(await open()).toEqual([[id, k.pid]]);
    const reused = await liveChild();
    await writeFile(join(dir, `inuse.${reused.pid}.lock`), String(reused.pid));
    await unlink(join(dir, `inuse.${k.pid}.lock`));
    expect(await open()).toEqual([]);
    await writeFile(join(dir, `inuse.${k.pid}.lock`), String(k.pid));
    await killed(k);
    expect(await open()).toEqual([]);
    await killed(reused);
  });

  it('an in-place rewrite of an open Claude session is refused with the agent and pid, --force too; a fork goes ahead and says how to switch to it', async () => {
    const { root } = await claudeRoot();
    const path = join(root, 'projects', '-p', `${CLAUDE_ID}.jsonl`);
    const lines = [
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: CLAUDE_ID, message: { role: 'user', content: 'one' }, cwd: '/p', timestamp: '2026-11-27T00:00:00.000Z' },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: CLAUDE_ID, message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, cwd: '/p', timestamp: '2026-11-27T00:00:01.000Z' },
      { type: 'user', uuid: 'u2', parentUuid: 'a1', sessionId: CLAUDE_ID, message: { role: 'user', content: 'two' }, cwd: '/p', timestamp: '2026-11-27T00:00:02.000Z' },
      { type: 'assistant', uuid: 'a2', parentUuid: 'u2', sessionId: CLAUDE_ID, message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, cwd: '/p', timestamp: '2026-11-27T00:00:03.000Z' },
    ];
    await writeFile(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const { utimes } = await import('node:fs/promises');
    const past = new Date(Date.now() - 3600_000);
    await utimes(path, past, past);
    const k = await liveChild();
    await writeFile(join(root, 'sessions', `${k.pid}.json`), claudeMarker(k.pid!, procStartOf(k.pid!)));
    const before = await readFile(path);
    const project = await tempDir('open-claude-proj-');
    const req = { transcriptPath: path, n: 1, projectRoot: project, agentRoot: root };
    const refused = ADAPTERS.claude.rewind!({ ...req, mode: 'in-place', force: true });
    await expect(refused).rejects.toMatchObject({ code: 'SESSION_OPEN' });
    await expect(refused).rejects.toThrow(new RegExp(`open in Claude Code \\(idle, pid ${k.pid}\\).*Fork it instead.*quit Claude Code`));
    expect(await readFile(path)).toEqual(before);
    const fork = await ADAPTERS.claude.rewind!({ ...req, mode: 'fork' });
    expect(fork.forkSessionId).toBeTruthy();
    expect(fork.open).toMatchObject({ pid: k.pid, status: 'idle' });
    expect(fork.handBack).toContain(`/resume ${fork.forkSessionId}`);
    expect(await readFile(path)).toEqual(before);
    // Run from inside that agent: its pid among our ancestors.
    expect((await insideAgent([{ adapter: ADAPTERS.claude, root }], [process.pid, k.pid!]))?.marker.sessionId).toBe(CLAUDE_ID);
    expect(await insideAgent([{ adapter: ADAPTERS.claude, root }], [process.pid])).toBeNull();
    await killed(k);
    await ADAPTERS.claude.rewind!({ ...req, mode: 'in-place', dryRun: true });
  });

  it('a code restore is refused while an agent is busy in the project (--force has no say), allowed and named while idle', async () => {
    const { root } = await claudeRoot();
    const project = await tempDir('open-restore-proj-');
    const k = await liveChild();
    const marker = join(root, 'sessions', `${k.pid}.json`);
    const roots = [{ adapter: ADAPTERS.claude, root }];
    await writeFile(marker, claudeMarker(k.pid!, procStartOf(k.pid!), { status: 'busy', cwd: join(project, 'sub') }));
    await expect(refuseRestoreWhileBusy(project, roots)).rejects.toThrow(new RegExp(`open in Claude Code \\(busy, pid ${k.pid}\\): restoring the code mid-turn`));
    await writeFile(marker, claudeMarker(k.pid!, procStartOf(k.pid!), { status: 'idle', cwd: project }));
    expect((await refuseRestoreWhileBusy(project, roots))?.open).toMatchObject({ pid: k.pid, status: 'idle' });
    // Another project's agent is none of this one's business.
    expect(await refuseRestoreWhileBusy(await tempDir('open-restore-other-'), roots)).toBeNull();
    await killed(k);
  });

  it('Gemini CLI (no marker): a running gemini.js process is found with its working folder; gone after kill -9', async () => {
    const dir = await tempDir('open-gemini-');
    const script = join(dir, 'gemini.js');
    await writeFile(script, 'setInterval(() => {}, 1000);\n');
    const k = spawn(process.execPath, ['--max-old-space-size=256', script], { cwd: dir, stdio: 'ignore' });
    kids.push(k);
    await new Promise((r) => k.once('spawn', r));
    const mine = async () => (await geminiOpenSessions()).filter((m) => m.pid === k.pid);
    const [m] = await mine();
    expect(m).toEqual({ sessionId: null, cwd: dir, pid: k.pid, status: 'unknown', since: expect.any(String) });
    // Its start time (to the second of the boot clock), from which the session it has open is told.
    expect(Math.abs(Date.parse(m!.since!) - Date.now())).toBeLessThan(30_000);
    await killed(k);
    expect(await mine()).toEqual([]);
  });
});
