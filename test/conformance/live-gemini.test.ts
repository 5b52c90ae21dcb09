import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gemini } from '../../src/engine/agents/gemini/adapter.js';
import { GEMINI_CLI, ensureNpmCli, orSkip } from './agents/npm-cli.js';
import { geminiDriver } from './agents/drivers.js';
import { geminiModelApi } from './agents/gemini-api.js';
import type { ModelApi } from './agents/suite.js';
import { ensureCliBuilt, rewindApp } from './harness.js';
import { Tmux } from './tmux.js';
import { tempDir } from '../temp.js';

const GEMINI = orSkip('Gemini CLI', ensureNpmCli(GEMINI_CLI));
const run = !!GEMINI && process.platform === 'linux' && Tmux.available();

interface Listed {
  id: string;
  transcriptPath: string;
  cwd: string | null;
  agent: string;
  open?: { agent: string; pid: number; exact: boolean };
}

/**
 * Issue #36 with the real Gemini CLI TUI (in tmux), idle after two prompts: Gemini marks no open
 * session, so its process working in the project makes the project's newest session (probably)
 * open; an in-place rewrite is refused, `--force` too, the file byte for byte; a fork is made and
 * `gemini --resume <fork>` sends exactly the kept prompt.
 */
describe.runIf(run)('a session open in the real Gemini CLI TUI', () => {
  let api: ModelApi;
  let tmux: Tmux;
  let home: string;
  let project: string;
  const driver = geminiDriver(GEMINI?.cmd ?? []);

  beforeAll(async () => {
    ensureCliBuilt();
    api = await geminiModelApi();
    const base = await tempDir('rewind-live-gemini-');
    home = join(base, 'home');
    project = join(base, 'project');
    for (const d of [home, project, join(base, 'tmp')]) await mkdir(d, { recursive: true });
    await driver.setup(home, project, api);
    const e = { ...driver.env(home, api), TERM: 'xterm-256color', CI: undefined, NO_COLOR: undefined, TMPDIR: join(base, 'tmp') };
    tmux = new Tmux(base);
    tmux.start(project, e, [...GEMINI!.cmd, '--approval-mode', 'yolo']);
    await tmux.firstScreen('live-gemini', (s) => s.includes('Type your message'), 180_000);
    await new Promise((r) => setTimeout(r, 1500));
    for (const p of ['just chatting one', 'just chatting two']) {
      tmux.type(p);
      // An Enter right after typed text can be taken as part of a paste: press it again until it sends.
      for (let i = 0; i < 5 && !(await tmux.waitFor((s) => s.includes(`OK: ${p}`), '', 4000).then(() => true, () => false)); i++) tmux.key('Enter');
      await tmux.waitFor((s) => s.includes(`OK: ${p}`), `the answer to "${p}"`, 120_000);
    }
  }, 480_000);

  afterAll(async () => {
    await tmux?.kill();
    await api?.close();
  });

  it('listed (probably) open by its process; back 1 --in-place (--force too) refused, the file byte for byte; a fork made and resumed with the kept prompt; the next prompt in the TUI goes on the whole session', async () => {
    const env = { HOME: home };
    const listed = () => {
      const list = rewindApp(['sessions', '--json'], env, project);
      expect(list.code, list.stderr).toBe(0);
      return (JSON.parse(list.stdout) as { sessions: Listed[] }).sessions.filter((x) => x.agent === 'gemini');
    };
    const sessions = listed();
    expect(sessions).toHaveLength(1);
    const transcript = sessions[0]!.transcriptPath;
    // The screen can show an answer before its records are on disk: wait for both prompts' turns.
    const count = async () => (await gemini.timeline(transcript).catch(() => null))?.stats.activePrompts ?? 0;
    for (let i = 0; i < 100 && (await count()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await count()).toBe(2);
    const open = sessions[0]!.open;
    expect(open).toMatchObject({ agent: 'gemini' });
    const pid = open!.pid;
    const before = await readFile(transcript);
    for (const force of [[], ['--force']]) {
      const r = rewindApp(['back', '1', '--in-place', ...force, '--transcript', transcript, '--project', project], env, project);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain(`(pid ${pid})`);
      expect(await readFile(transcript)).toEqual(before);
    }
    const f = rewindApp(['back', '1', '--transcript', transcript, '--project', project], env, project);
    expect(f.code, `${f.stderr}\n${f.stdout}`).toBe(0);
    const fork = /^Fork created: (\S+)$/m.exec(f.stdout)![1]!;
    expect(f.stdout).toContain(`(pid ${pid}) has the original open`);
    expect(await readFile(transcript)).toEqual(before);
    // The fork is now the folder's newest file, but the TUI has the original open: the list says so.
    const afterFork = listed();
    expect(afterFork.find((x) => x.transcriptPath === transcript)?.open).toMatchObject({ agent: 'gemini', pid });
    expect(afterFork.find((x) => x.id === fork)).toBeDefined();
    expect(afterFork.find((x) => x.id === fork)?.open ?? null).toBeNull();
    // The open TUI takes another prompt: the session goes on whole, appended after what was there.
    tmux.type('just chatting three');
    for (let i = 0; i < 5 && !(await tmux.waitFor((s) => s.includes('OK: just chatting three'), '', 4000).then(() => true, () => false)); i++) tmux.key('Enter');
    const three = async () => (await gemini.timeline(transcript).catch(() => null))?.stats.activePrompts ?? 0;
    for (let i = 0; i < 100 && (await three()) < 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await three()).toBe(3);
    expect((await readFile(transcript)).subarray(0, before.length)).toEqual(before);
    expect(listed().filter((x) => x.open).map((x) => x.transcriptPath)).toEqual([transcript]);
    await driver.run(home, project, api, fork, 'after the fork');
    const sent = api.histories().at(-1)!.filter((l) => l.startsWith('user: '));
    expect(sent).toEqual(['user: just chatting one', 'user: after the fork']);
  }, 90_000);
});
