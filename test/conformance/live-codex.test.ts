import { spawnSync } from 'node:child_process';
import { appendFile, mkdir, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codex as codexAdapter } from '../../src/engine/agents/codex/adapter.js';
import { startCodexApi, userText, type CodexApi } from './codex-api.js';
import { resumedTurns } from './codex-app-server.js';
import { codexHome, ensureCodex, runCodex, type CodexEnv } from './codex-cli.js';
import { ensureCliBuilt, rewindApp } from './harness.js';
import { Tmux } from './tmux.js';
import { tempDir } from '../temp.js';

/*
 * The pinned Codex CLI (0.171.0), its real TUI in tmux and the app-server daemon it starts: the
 * daemon holds the thread, so an in-place rewind goes through it (`thread/revert` on its control
 * socket) and is judged by what the same open TUI sends next, and by a later `codex exec resume`.
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
 * Issues #36 and #37 with the real Codex TUI (in tmux), idle after three prompts: its app-server
 * daemon holds `thread-writer-locks/<id>.lock` (and the rollout's fd), so the session is listed open
 * by the daemon's pid. A fork is made and resumed with the kept prompts. `back 1 --in-place` goes
 * through the daemon (`thread/revert`): the preview says so and how undo goes, the rollout it read
 * stays byte for byte, Codex's new generation holds exactly the kept prompts, undo is refused while
 * Codex holds the thread; the next prompt typed into the same open TUI reaches the model without the
 * removed one, and a later `codex exec resume` sends exactly the kept prompts plus the new ones.
 * Once Codex let go of the thread, undo puts the whole thread back and Codex resumes it whole.
 */
describe.runIf(run)('a session open in the real Codex TUI', () => {
  let api: CodexApi;
  let tmux: Tmux;
  let env: CodexEnv;
  let project: string;
  let rollout: string;
  let threadId: string;
  let daemon: number;
  let generation: string;
  /** The journal entry of the rewind done through the daemon. */
  let revertId: string;
  const cli = () => ({ HOME: env.home, CODEX_HOME: env.home });
  const count = async (path: string) => (await codexAdapter.timeline(path).catch(() => null))?.stats.activePrompts ?? 0;
  const texts = async (path: string) => ((await codexAdapter.timeline(path).catch(() => null))?.prompts ?? []).map((p) => p.text);
  const lastSent = (from: number, last: string) => api.requests.slice(from).map(prompts).find((u) => u[u.length - 1] === last);
  /** Types a prompt into the open TUI and waits for its answer (Enter again when the composer swallowed it under load). */
  const typeAndWait = async (text: string) => {
    tmux.type(text);
    for (let i = 0; i < 5 && !(await tmux.waitFor((s) => s.includes(`OK: ${text}`), '', 6000).then(() => true, () => false)); i++) tmux.key('Enter');
    await tmux.waitFor((s) => s.includes(`OK: ${text}`), `the answer to "${text}"`, 60_000);
  };
  const stopDaemon = () => spawnSync(process.execPath, [env.bin, 'app-server', 'daemon', 'stop'], { env: { PATH: process.env.PATH, HOME: env.home, CODEX_HOME: env.home, TMPDIR: join(env.home, '..', 'tmp') }, encoding: 'utf8', timeout: 30_000 });

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
    for (const p of ['just chatting one', 'just chatting two', 'just chatting three']) await typeAndWait(p);
    const find = spawnSync('find', [join(home, 'sessions'), '-name', `*${threadId}.jsonl`], { encoding: 'utf8' });
    rollout = find.stdout.trim();
    for (let i = 0; i < 100 && (await count(rollout)) < 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await count(rollout)).toBe(3);
    daemon = (JSON.parse(await readFile(join(home, 'app-server-daemon', 'daemon.pid'), 'utf8')) as { pid: number }).pid;
  }, 240_000);

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
      const stop = stopDaemon();
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

  it('listed open by its daemon; a fork is made and resumed with the kept prompts, the rollout byte for byte', async () => {
    const list = rewindApp(['sessions', '--json'], cli(), project);
    expect(list.code, list.stderr).toBe(0);
    const s = (JSON.parse(list.stdout) as { sessions: { transcriptPath: string; open?: unknown }[] }).sessions.find((x) => x.transcriptPath === rollout);
    expect(s?.open).toMatchObject({ agent: 'codex', pid: daemon, exact: true });
    const before = await readFile(rollout);
    const f = rewindApp(['back', '1', '--transcript', rollout, '--project', project], cli(), project);
    expect(f.code, `${f.stderr}\n${f.stdout}`).toBe(0);
    const fork = /^Fork created: (\S+)$/m.exec(f.stdout)![1]!;
    expect(f.stdout).toContain(`(pid ${daemon}) has the original open`);
    expect(await readFile(rollout)).toEqual(before);
    const from = api.requests.length;
    const r = await runCodex(env, project, ['resume', fork, 'after the fork']);
    expect(r.code, r.stderr).toBe(0);
    expect(lastSent(from, 'after the fork')).toEqual(['just chatting one', 'just chatting two', 'after the fork']);
  }, 120_000);

  it('back 1 --in-place goes through the daemon: previewed as such with how undo goes, the new generation holds exactly the kept prompts, undo refused while open', async () => {
    const before = await readFile(rollout);
    const dry = rewindApp(['back', '1', '--in-place', '--dry-run', '--transcript', rollout, '--project', project], cli(), project);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(`Codex CLI (pid ${daemon}) has this session open: the rewind goes through it (thread/revert on its app-server daemon)`);
    expect(dry.stderr).toContain('Undo does not go through Codex CLI');
    expect(dry.stdout).toContain('Dry run: the running Codex CLI would rewind in place before prompt "just chatting three"');
    expect(await readFile(rollout)).toEqual(before);
    const r = rewindApp(['back', '1', '--in-place', '--json', '--transcript', rollout, '--project', project], cli(), project);
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    const done = JSON.parse(r.stdout) as { handBack: string; journalId: string; transcript: string; backupPath: string };
    expect(done.handBack).toContain(`Codex CLI (pid ${daemon}) has this session open: the rewind goes through it`);
    revertId = done.journalId;
    // thread/revert leaves the file it read alone and writes a new generation of the thread.
    expect(await readFile(rollout)).toEqual(before);
    const list = rewindApp(['sessions', '--json'], cli(), project);
    const mine = (JSON.parse(list.stdout) as { sessions: { id: string; transcriptPath: string; open?: unknown }[] }).sessions.filter((x) => x.id === threadId);
    expect(mine).toHaveLength(1);
    generation = mine[0]!.transcriptPath;
    expect(generation).toMatch(new RegExp(`${threadId}_[0-9a-f-]{36}\\.jsonl$`));
    expect(mine[0]!.open).toMatchObject({ agent: 'codex', pid: daemon });
    expect(await texts(generation)).toEqual(['just chatting one', 'just chatting two']);
    const u = rewindApp(['undo', revertId, '--dry-run', '--project', project], cli(), project);
    expect(u.code, u.stderr).toBe(5);
    expect(u.stderr).toContain(`(pid ${daemon})`);
  }, 120_000);

  it('the next prompt in the open TUI reaches the model without the removed prompt; a later codex exec resume sends the kept prompts and the new ones', async () => {
    const from = api.requests.length;
    await typeAndWait('just chatting four');
    expect(lastSent(from, 'just chatting four')).toEqual(['just chatting one', 'just chatting two', 'just chatting four']);
    for (let i = 0; i < 100 && (await count(generation)) < 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await texts(generation)).toEqual(['just chatting one', 'just chatting two', 'just chatting four']);
    // Codex lets go of the thread when its daemon stops (the TUI quit first).
    tmux.key('C-c');
    tmux.key('C-c');
    const stop = stopDaemon();
    expect(stop.status, stop.stderr).toBe(0);
    const at = api.requests.length;
    const r = await runCodex(env, project, ['resume', threadId, 'just chatting five']);
    expect(r.code, r.stderr).toBe(0);
    expect(lastSent(at, 'just chatting five')).toEqual(['just chatting one', 'just chatting two', 'just chatting four', 'just chatting five']);
    // A fork of the new generation (whose prefix is in the first file) carries that prefix and resumes right.
    expect(await texts(generation)).toEqual(['just chatting one', 'just chatting two', 'just chatting four', 'just chatting five']);
    const f = rewindApp(['back', '1', '--transcript', generation, '--project', project], cli(), project);
    expect(f.code, `${f.stderr}\n${f.stdout}`).toBe(0);
    const fork = /^Fork created: (\S+)$/m.exec(f.stdout)![1]!;
    const from2 = api.requests.length;
    const rf = await runCodex(env, project, ['resume', fork, 'after the generation fork']);
    expect(rf.code, rf.stderr).toBe(0);
    expect(lastSent(from2, 'after the generation fork')).toEqual(['just chatting one', 'just chatting two', 'just chatting four', 'after the generation fork']);
  }, 180_000);

  it('once Codex let go of the thread, undo puts the whole thread back (the newer file kept aside) and Codex resumes it whole; an in-place rewrite of the generation is then Rewind\'s own', async () => {
    const plain = rewindApp(['undo', revertId, '--dry-run', '--project', project], cli(), project);
    // The session went on after the revert: undo says so, and --force keeps what it replaces.
    expect(plain.code, plain.stderr).not.toBe(0);
    expect(plain.stderr).toContain('the session went on');
    const u = rewindApp(['undo', revertId, '--force', '--project', project], cli(), project);
    expect(u.code, `${u.stderr}\n${u.stdout}`).toBe(0);
    expect(await texts(generation)).toEqual(['just chatting one', 'just chatting two', 'just chatting three']);
    // What the TUI would show on `codex resume`: Codex's turn projection was dropped with the put-back, and rebuilt from it.
    expect(await resumedTurns(env, project, threadId)).toEqual([['just chatting one'], ['just chatting two'], ['just chatting three']]);
    const at = api.requests.length;
    const r = await runCodex(env, project, ['resume', threadId, 'just chatting six']);
    expect(r.code, r.stderr).toBe(0);
    expect(lastSent(at, 'just chatting six')).toEqual(['just chatting one', 'just chatting two', 'just chatting three', 'just chatting six']);
    // With nobody holding it now, an in-place rewrite of the generation file is Rewind's own (--force:
    // Codex wrote it a moment ago); Codex's projection under the generation's id goes with it.
    const w = rewindApp(['back', '1', '--in-place', '--force', '--transcript', generation, '--project', project], cli(), project);
    expect(w.code, `${w.stderr}\n${w.stdout}`).toBe(0);
    expect(w.stdout).not.toContain('the rewind goes through it');
    expect(await resumedTurns(env, project, threadId)).toEqual([['just chatting one'], ['just chatting two'], ['just chatting three']]);
    const at2 = api.requests.length;
    const r2 = await runCodex(env, project, ['resume', threadId, 'just chatting seven']);
    expect(r2.code, r2.stderr).toBe(0);
    expect(lastSent(at2, 'just chatting seven')).toEqual(['just chatting one', 'just chatting two', 'just chatting three', 'just chatting seven']);
  }, 240_000);
});
