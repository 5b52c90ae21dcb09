import { spawnSync } from 'node:child_process';
import { appendFile, mkdir, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codex as codexAdapter } from '../../src/engine/agents/codex/adapter.js';
import { startCodexApi, userText, type CodexApi } from './codex-api.js';
import { codexHome, ensureCodex, runCodex, type CodexEnv } from './codex-cli.js';
import { ensureCliBuilt, rewindApp } from './harness.js';
import { Tmux } from './tmux.js';
import { tempDir } from '../temp.js';

/*
 * Codex 0.169.0 (the pinned CLI), not 0.171.0: Rewind's Codex writer was checked against 0.169
 * rollouts and shows a newer one read only (measured with 0.171.0 in tmux: listed open all the
 * same, but `back` refuses as "read only" before the open-session guard is reached, and no fork is
 * made), so only 0.169 exercises the guard and the fork.
 */
const CODEX = ensureCodex();
const run = 'bin' in CODEX && process.platform === 'linux' && Tmux.available();

/** Paths of the Unix sockets `pids` hold open (`/proc/<pid>/fd` inodes looked up in `/proc/net/unix`). */
async function socketsOf(pids: number[]): Promise<string[]> {
  const inodes = new Set<string>();
  for (const pid of pids) {
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
      const m = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/${pid}/fd/${fd}`).catch(() => ''));
      if (m) inodes.add(m[1]!);
    }
  }
  const table = await readFile('/proc/net/unix', 'utf8').catch(() => '');
  return table.split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => f.length >= 8 && inodes.has(f[6]!)).map((f) => f[7]!);
}

/** Pids of the processes running a binary under `dir` (the daemon's copy lives in `$CODEX_HOME/packages`). */
async function processesUnder(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const exe = await readlink(`/proc/${name}/exe`).catch(() => '');
    if (exe.startsWith(`${dir}/`)) pids.push(Number(name));
  }
  return pids;
}

const prompts = (body: { input: Parameters<typeof userText>[0][] }) => body.input.map(userText).filter((t): t is string => t !== null);

/**
 * Issue #36 with the real Codex TUI (in tmux), idle after two prompts: its app-server daemon holds
 * `thread-writer-locks/<id>.lock` (and the rollout's fd), so the session is listed open by the
 * daemon's pid; an in-place rewrite (which the daemon would not see) is refused, `--force` too, the
 * rollout byte for byte; a fork is made and `codex exec resume <fork>` sends exactly the kept prompt.
 */
describe.runIf(run)('a session open in the real Codex TUI', () => {
  let api: CodexApi;
  let tmux: Tmux;
  let env: CodexEnv;
  let project: string;
  let rollout: string;
  let threadId: string;
  let daemon: number;

  beforeAll(async () => {
    ensureCliBuilt();
    api = await startCodexApi();
    const base = await tempDir('rewind-live-codex-');
    project = join(base, 'project');
    const tmp = join(base, 'tmp');
    for (const d of [project, tmp]) await mkdir(d, { recursive: true });
    const home = await codexHome(join(base, 'home'), api.url);
    // Trusted up front, or the TUI opens on its trust question.
    await appendFile(join(home, 'config.toml'), `\n[projects."${project}"]\ntrust_level = "trusted"\n`);
    env = { bin: (CODEX as { bin: string }).bin, apiUrl: api.url, home };
    const e: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home, FAKE_OPENAI_KEY: 'sk-test', TERM: 'xterm-256color', TMPDIR: tmp };
    tmux = new Tmux(base);
    tmux.start(project, e, [process.execPath, env.bin, '--dangerously-bypass-approvals-and-sandbox']);
    // The thread's lock appears once the daemon (copied into $CODEX_HOME first) has loaded it: only then
    // does the composer take a prompt.
    const locks = join(home, 'thread-writer-locks');
    const lockName = async () => (await readdir(locks).catch(() => [] as string[])).find((n) => n.endsWith('.lock') && !n.startsWith('.'));
    for (const end = Date.now() + 90_000; !(await lockName()) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 250));
    threadId = (await lockName())!.slice(0, -'.lock'.length);
    await tmux.firstScreen('live-codex', (s) => s.includes('Ask Codex to do anything'), 30_000);
    for (const p of ['just chatting one', 'just chatting two']) {
      tmux.type(p);
      await tmux.waitFor((s) => s.includes(`OK: ${p}`), `the answer to "${p}"`, 60_000);
    }
    const find = spawnSync('find', [join(home, 'sessions'), '-name', `*${threadId}.jsonl`], { encoding: 'utf8' });
    rollout = find.stdout.trim();
    const count = async () => (await codexAdapter.timeline(rollout).catch(() => null))?.stats.activePrompts ?? 0;
    for (let i = 0; i < 100 && (await count()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await count()).toBe(2);
    daemon = (JSON.parse(await readFile(join(home, 'app-server-daemon', 'daemon.pid'), 'utf8')) as { pid: number }).pid;
  }, 180_000);

  afterAll(async () => {
    await tmux?.kill();
    if (env) {
      // The daemon outlives the TUI (and its pid-update-loop outlives `daemon stop`): stop it, then end
      // whatever still runs from this test's $CODEX_HOME, so nothing survives the test.
      // Its control socket lives in /tmp/codex-daemon-<uid>/ whatever TMPDIR says, named by a link in $CODEX_HOME.
      const link = join(env.home, 'app-server-control', 'app-server-control.sock');
      const sockets = new Set<string>();
      const remember = async () => void (await readlink(link).then((t) => sockets.add(t), () => undefined));
      await remember();
      for (const s of await socketsOf(await processesUnder(env.home))) if (s.includes('codex-daemon-')) sockets.add(s);
      const stop = spawnSync(process.execPath, [env.bin, 'app-server', 'daemon', 'stop'], { env: { PATH: process.env.PATH, HOME: env.home, CODEX_HOME: env.home, TMPDIR: join(env.home, '..', 'tmp') }, encoding: 'utf8', timeout: 30_000 });
      if (stop.status !== 0) console.warn(`codex app-server daemon stop: ${stop.status} ${stop.stderr}`);
      for (let pass = 0; pass < 5; pass++) {
        const left = await processesUnder(env.home);
        if (left.length === 0) break;
        for (const s of await socketsOf(left)) if (s.includes('codex-daemon-')) sockets.add(s);
        for (const pid of left) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone already
          }
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      // The daemon listens on more than the linked socket: remove every one our processes held.
      await remember();
      for (const socket of sockets) for (const f of [socket, `${socket}.lock`]) await rm(f, { force: true });
    }
    await api?.close();
  }, 60_000);

  it('listed open by its daemon; back 1 --in-place (--force too) refused, the rollout byte for byte; a fork made and resumed with the kept prompt; the next prompt in the TUI goes on the whole session', async () => {
    const cli = { HOME: env.home, CODEX_HOME: env.home };
    const list = rewindApp(['sessions', '--json'], cli, project);
    expect(list.code, list.stderr).toBe(0);
    const s = (JSON.parse(list.stdout) as { sessions: { transcriptPath: string; open?: unknown }[] }).sessions.find((x) => x.transcriptPath === rollout);
    expect(s?.open).toMatchObject({ agent: 'codex', pid: daemon, exact: true });
    const before = await readFile(rollout);
    for (const force of [[], ['--force']]) {
      const r = rewindApp(['back', '1', '--in-place', ...force, '--transcript', rollout, '--project', project], cli, project);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain(`(pid ${daemon})`);
      expect(await readFile(rollout)).toEqual(before);
    }
    const f = rewindApp(['back', '1', '--transcript', rollout, '--project', project], cli, project);
    expect(f.code, `${f.stderr}\n${f.stdout}`).toBe(0);
    const fork = /^Fork created: (\S+)$/m.exec(f.stdout)![1]!;
    expect(f.stdout).toContain(`(pid ${daemon}) has the original open`);
    expect(f.stdout).toContain(fork);
    expect(await readFile(rollout)).toEqual(before);
    // The open TUI takes another prompt: the session goes on whole, appended after what was there.
    tmux.type('just chatting three');
    for (let i = 0; i < 5 && !(await tmux.waitFor((s) => s.includes('OK: just chatting three'), '', 4000).then(() => true, () => false)); i++) tmux.key('Enter');
    const three = async () => (await codexAdapter.timeline(rollout).catch(() => null))?.stats.activePrompts ?? 0;
    for (let i = 0; i < 100 && (await three()) < 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await three()).toBe(3);
    expect((await readFile(rollout)).subarray(0, before.length)).toEqual(before);
    const from = api.requests.length;
    const r = await runCodex(env, project, ['resume', fork, 'after the fork']);
    expect(r.code, r.stderr).toBe(0);
    const sent = api.requests.slice(from).map(prompts).find((u) => u[u.length - 1] === 'after the fork');
    expect(sent).toEqual(['just chatting one', 'after the fork']);
  }, 90_000);
});
