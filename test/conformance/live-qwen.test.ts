import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qwen } from '../../src/engine/agents/qwen/adapter.js';
import { QWEN_CLI, ensureNpmCli, orSkip, qwenEnv } from './agents/npm-cli.js';
import { chatModelApi } from './agents/chat-model.js';
import type { ModelApi } from './agents/suite.js';
import { ensureCliBuilt, rewindApp } from './harness.js';
import { Tmux } from './tmux.js';
import { tempDir } from '../temp.js';

const QWEN = orSkip('Qwen Code', ensureNpmCli(QWEN_CLI));
const run = !!QWEN && process.platform === 'linux' && Tmux.available();

/**
 * Issue #36 with the real Qwen Code TUI (in tmux), idle after two prompts: its registry marker
 * (`~/.qwen/sessions/<pid>.json`, start time `<boot_id>:<ticks>`) makes the session open; an
 * in-place rewrite (which would leave its next prompt's parent dangling) is refused, the file byte
 * for byte, and a fork is made.
 */
describe.runIf(run)('a session open in the real Qwen Code TUI', () => {
  let api: ModelApi;
  let tmux: Tmux;
  let home: string;
  let project: string;
  let transcript: string;
  let pid: number;

  beforeAll(async () => {
    ensureCliBuilt();
    api = await chatModelApi();
    const base = await tempDir('rewind-live-qwen-');
    home = join(base, 'home');
    project = join(base, 'project');
    for (const d of [home, project, join(base, 'tmp')]) await mkdir(d, { recursive: true });
    const e = { ...qwenEnv(home, api.url), TERM: 'xterm-256color', CI: undefined, NO_COLOR: undefined, TMPDIR: join(base, 'tmp') };
    tmux = new Tmux(base);
    tmux.start(project, e, [...QWEN!.cmd, '--approval-mode', 'yolo']);
    await tmux.firstScreen('live-qwen', (s) => s.includes('Type your message'), 150_000);
    for (const p of ['just chatting one', 'just chatting two']) {
      tmux.type(p);
      await tmux.waitFor((s) => s.includes(`OK: ${p}`), `the answer to "${p}"`, 90_000);
    }
    const markers = (await readdir(join(home, '.qwen', 'sessions'))).filter((n) => /^\d+\.json$/.test(n));
    expect(markers).toHaveLength(1);
    const marker = JSON.parse(await readFile(join(home, '.qwen', 'sessions', markers[0]!), 'utf8')) as { pid: number; sessionId: string };
    pid = marker.pid;
    const dir = (await readdir(join(home, '.qwen', 'projects')))[0]!;
    transcript = join(home, '.qwen', 'projects', dir, 'chats', `${marker.sessionId}.jsonl`);
    // The screen can show an answer before its records are on disk: wait for both prompts' turns.
    const count = async () => (await qwen.timeline(transcript).catch(() => null))?.stats.activePrompts ?? 0;
    for (let i = 0; i < 600 && (await count()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await count()).toBe(2);
    // Then the second answer's record, and the file quiet for 2 s (its telemetry record follows the
    // answer): the checks below compare the file byte for byte, so Qwen must be done writing.
    const size = async () => (await stat(transcript)).size;
    for (let i = 0; i < 600 && !(await readFile(transcript, 'utf8')).includes('OK: just chatting two'); i++) await new Promise((r) => setTimeout(r, 100));
    for (let last = -1, since = Date.now(), end = Date.now() + 60_000; Date.now() < end && Date.now() - since < 2000; await new Promise((r) => setTimeout(r, 200))) {
      const now = await size();
      if (now !== last) [last, since] = [now, Date.now()];
    }
  });

  afterAll(async () => {
    await tmux?.kill();
    await api?.close();
  });

  // Once more on a failure: under load the TUI's marker or last records can trail its screen.
  it('listed open with its pid; back 1 --in-place (--force too) refused, the file byte for byte; a fork made', { retry: 1 }, async () => {
    const env = { HOME: home };
    const list = rewindApp(['sessions', '--json'], env, project);
    expect(list.code, list.stderr).toBe(0);
    const s = (JSON.parse(list.stdout) as { sessions: { transcriptPath: string; open?: unknown }[] }).sessions.find((x) => x.transcriptPath === transcript);
    expect(s?.open).toMatchObject({ agent: 'qwen', pid, exact: true });
    const before = await readFile(transcript);
    const r = rewindApp(['back', '1', '--in-place', '--force', '--transcript', transcript, '--project', project], env, project);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(`open in Qwen Code (pid ${pid})`);
    expect(await readFile(transcript)).toEqual(before);
    const f = rewindApp(['back', '1', '--transcript', transcript, '--project', project], env, project);
    expect(f.code, `${f.stderr}\n${f.stdout}`).toBe(0);
    const fork = /^Fork created: (\S+)$/m.exec(f.stdout)![1]!;
    expect(f.stdout).toContain(`Qwen Code (pid ${pid}) has the original open: quit it, then continue on the fork with qwen --resume ${fork}`);
    expect(await readFile(transcript)).toEqual(before);
  });
});
