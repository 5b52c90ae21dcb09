import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droid } from '../../src/engine/agents/droid/adapter.js';
import { DROID_CLI, ensureNpmCli, orSkip } from './agents/npm-cli.js';
import { DROID_TUI_KEY } from './agents/chat-api.js';
import { chatModelApi } from './agents/chat-model.js';
import { droidDriver } from './agents/drivers.js';
import type { ModelApi } from './agents/suite.js';
import { ensureCliBuilt, rewindApp } from './harness.js';
import { Tmux } from './tmux.js';
import { tempDir } from '../temp.js';

const DROID = orSkip('Factory Droid', ensureNpmCli(DROID_CLI));
const run = !!DROID && process.platform === 'linux' && Tmux.available();

interface Listed {
  id: string;
  transcriptPath: string;
  agent: string;
  open?: { agent: string; pid: number; exact: boolean };
}

/**
 * Issue #36 with the real Droid TUI (in tmux), idle after two prompts: Droid marks no open session
 * while idle, so its process working in the project makes the project's newest session (probably)
 * open; an in-place rewrite is refused, `--force` too, the file byte for byte; a fork is made and
 * `droid exec -s <fork>` sends exactly the kept prompt. The TUI wants a Factory key: the scripted
 * server's `/api/cli/whoami` accepts the test's own.
 */
describe.runIf(run)('a session open in the real Droid TUI', () => {
  let api: ModelApi;
  let tmux: Tmux;
  let home: string;
  let project: string;
  const driver = droidDriver(DROID?.cmd ?? []);

  beforeAll(async () => {
    ensureCliBuilt();
    api = await chatModelApi();
    const base = await tempDir('rewind-live-droid-');
    home = join(base, 'home');
    project = join(base, 'project');
    for (const d of [home, project, join(base, 'tmp')]) await mkdir(d, { recursive: true });
    await driver.setup(home, project, api);
    // The TUI has no model flag: the custom model is made the default.
    const settings = JSON.parse(await readFile(join(home, '.factory', 'settings.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(home, '.factory', 'settings.json'), JSON.stringify({ ...settings, sessionDefaultSettings: { model: 'custom:Fake-0' } }));
    const e = { ...driver.env(home, api), FACTORY_API_KEY: DROID_TUI_KEY, TERM: 'xterm-256color', CI: undefined, NO_COLOR: undefined, TMPDIR: join(base, 'tmp') };
    tmux = new Tmux(base);
    tmux.start(project, e, [...DROID!.cmd, '--auto', 'high']);
    // A first start asks to trust the folder.
    const first = await tmux.firstScreen('live-droid', (s) => s.includes('Trust this folder') || s.includes('for help'), 150_000);
    if (first.includes('Trust this folder')) tmux.key('Enter');
    await tmux.waitFor((s) => s.includes('for help') && !s.includes('Trust this folder'), 'its prompt', 150_000);
    await new Promise((r) => setTimeout(r, 2000));
    for (const p of ['just chatting one', 'just chatting two']) {
      tmux.type(p);
      for (let i = 0; i < 5 && !(await tmux.waitFor((s) => s.includes(`OK: ${p}`), '', 4000).then(() => true, () => false)); i++) tmux.key('Enter');
      await tmux.waitFor((s) => s.includes(`OK: ${p}`), `the answer to "${p}"`, 120_000);
    }
  }, 600_000);

  afterAll(async () => {
    await tmux?.kill();
    await api?.close();
  });

  it('listed (probably) open by its process; back 1 --in-place (--force too) refused, the file byte for byte; a fork made and resumed with the kept prompt; the next prompt in the TUI goes on the whole session', async () => {
    const env = { HOME: home };
    const list = rewindApp(['sessions', '--json'], env, project);
    expect(list.code, list.stderr).toBe(0);
    const sessions = (JSON.parse(list.stdout) as { sessions: Listed[] }).sessions.filter((x) => x.agent === 'droid');
    const count = async (t: string) => (await droid.timeline(t).catch(() => null))?.stats.activePrompts ?? 0;
    // The TUI may leave an empty session of its start next to the one it talks in.
    const talked: Listed[] = [];
    for (const s of sessions) if ((await count(s.transcriptPath)) > 0) talked.push(s);
    expect(talked).toHaveLength(1);
    const transcript = talked[0]!.transcriptPath;
    for (let i = 0; i < 100 && (await count(transcript)) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await count(transcript)).toBe(2);
    const open = talked[0]!.open;
    expect(open).toMatchObject({ agent: 'droid' });
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
    const again = rewindApp(['sessions', '--json'], env, project);
    const afterFork = (JSON.parse(again.stdout) as { sessions: Listed[] }).sessions.filter((x) => x.agent === 'droid');
    expect(afterFork.find((x) => x.transcriptPath === transcript)?.open).toMatchObject({ agent: 'droid', pid });
    expect(afterFork.find((x) => x.id === fork)).toBeDefined();
    expect(afterFork.filter((x) => x.open).map((x) => x.transcriptPath)).toEqual([transcript]);
    // The open TUI takes another prompt: the session goes on whole, appended after what was there.
    tmux.type('just chatting three');
    for (let i = 0; i < 5 && !(await tmux.waitFor((s) => s.includes('OK: just chatting three'), '', 4000).then(() => true, () => false)); i++) tmux.key('Enter');
    const three = async () => (await droid.timeline(transcript).catch(() => null))?.stats.activePrompts ?? 0;
    for (let i = 0; i < 100 && (await three()) < 3; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await three()).toBe(3);
    expect((await readFile(transcript)).subarray(0, before.length)).toEqual(before);
    await driver.run(home, project, api, fork, 'after the fork');
    const sent = api.histories().at(-1)!.filter((l) => l.startsWith('user: '));
    expect(sent).toEqual(['user: just chatting one', 'user: after the fork']);
  }, 90_000);
});
