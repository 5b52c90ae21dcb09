import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTranscriptFile } from '../../src/engine/agents/claude/parse-transcript.js';
import { toTimeline } from '../../src/engine/agents/claude/timeline.js';
import { claudeEnv } from './claude-cli.js';
import { CLI, claudeOrSkip, ensureCliBuilt, rewindApp, withApi } from './harness.js';
import type { ScriptedApi } from './scripted-api.js';
import { resumedHistory, type Scenario } from './scenario.js';
import { Tmux } from './tmux.js';
import { tempDir } from '../temp.js';

const claude = claudeOrSkip();
const run = 'bin' in claude && process.platform !== 'win32' && Tmux.available();
const KEY = 'sk-ant-test-conformance';

/**
 * Issue #36 with the real Claude Code TUI (interactive, in tmux), idle on a session after three
 * prompts: Rewind knows it is open (its `sessions/<pid>.json`, checked for liveness), refuses to
 * rewrite it in place (the file stays byte for byte), forks it and says how to switch to the fork,
 * and, run from the TUI's own shell, names the TUI it runs inside.
 */
describe.runIf(run)('a session open in the real Claude Code TUI', () => {
  let api: ScriptedApi;
  let tmux: Tmux;
  let configDir: string;
  let project: string;
  let transcript: string;
  let pid: number;
  const env = () => ({ CLAUDE_CONFIG_DIR: configDir, HOME: join(configDir, '..', 'home') });
  const prompts = async (path: string) => toTimeline(await parseTranscriptFile(path)).prompts.filter((p) => p.active).map((p) => p.text);

  beforeAll(async () => {
    if (!('bin' in claude)) return;
    ensureCliBuilt();
    api = await withApi();
    const base = await tempDir('rewind-live-claude-');
    configDir = join(base, 'config');
    project = join(base, 'project');
    for (const d of [configDir, project, join(base, 'home'), join(base, 'tmp')]) await mkdir(d, { recursive: true });
    // What a first start would ask: onboarding done, the folder trusted, the API key approved.
    await writeFile(join(configDir, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true, theme: 'dark', customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] }, projects: { [project]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } } }));
    const e = { ...claudeEnv({ bin: claude.bin, apiUrl: api.url, home: join(base, 'home'), configDir }), TERM: 'xterm-256color', CI: undefined, TMPDIR: join(base, 'tmp') };
    tmux = new Tmux(base);
    tmux.start(project, e, [claude.bin]);
    await tmux.firstScreen('live-claude', (s) => s.includes('❯'), 60_000);
    for (const p of ['plain live one', 'plain live two', 'plain live three']) {
      tmux.type(p);
      await tmux.waitFor((s) => s.includes(`OK: ${p}`), `the answer to "${p}"`);
    }
    const markers = (await readdir(join(configDir, 'sessions'))).filter((n) => n.endsWith('.json'));
    expect(markers).toHaveLength(1);
    // Idle again after the third answer (the TUI rewrites its marker on each status change).
    let marker: { pid: number; sessionId: string; status: string } = { pid: 0, sessionId: '', status: '' };
    for (let i = 0; i < 100 && marker.status !== 'idle'; i++, await new Promise((r) => setTimeout(r, 100))) marker = JSON.parse(await readFile(join(configDir, 'sessions', markers[0]!), 'utf8'));
    expect(marker.status).toBe('idle');
    pid = marker.pid;
    const dir = (await readdir(join(configDir, 'projects')))[0]!;
    transcript = join(configDir, 'projects', dir, `${marker.sessionId}.jsonl`);
    expect(await prompts(transcript)).toEqual(['plain live one', 'plain live two', 'plain live three']);
  });

  afterAll(async () => {
    await tmux?.kill();
    await api?.close();
  });

  it('sessions --json and timeline --json say it is open in Claude Code, idle, with the pid', () => {
    const list = rewindApp(['sessions', '--json'], env(), project);
    expect(list.code, list.stderr).toBe(0);
    const s = (JSON.parse(list.stdout) as { sessions: { transcriptPath: string; open?: unknown }[] }).sessions.find((x) => x.transcriptPath === transcript);
    expect(s?.open).toMatchObject({ agent: 'claude', pid, status: 'idle', exact: true });
    const t = rewindApp(['timeline', transcript, '--json'], env(), project);
    expect(t.code, t.stderr).toBe(0);
    expect((JSON.parse(t.stdout) as { open: unknown }).open).toMatchObject({ agent: 'claude', pid, status: 'idle' });
  });

  it('back 1 --in-place (--force too) is refused with the agent and pid; the file stays byte for byte', async () => {
    const before = await readFile(transcript);
    for (const extra of [[], ['--force']]) {
      const r = rewindApp(['back', '1', '--in-place', ...extra, '--transcript', transcript, '--project', project], env(), project);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toContain(`open in Claude Code (idle, pid ${pid})`);
      expect(r.stderr).toContain('Fork it instead');
    }
    expect(await readFile(transcript)).toEqual(before);
  });

  it('a fork is made, says to type /resume <fork> in the open TUI, and resumes right; the open session takes another prompt and stays whole', async () => {
    const before = await readFile(transcript);
    const r = rewindApp(['back', '1', '--transcript', transcript, '--project', project], env(), project);
    expect(r.code, r.stderr).toBe(0);
    const fork = /^Fork created: (\S+)$/m.exec(r.stdout)![1]!;
    expect(r.stdout).toContain(`Claude Code (pid ${pid}) has the original open: type /resume ${fork} in it`);
    expect(await readFile(transcript)).toEqual(before);
    expect(await prompts(join(transcript, '..', `${fork}.jsonl`))).toEqual(['plain live one', 'plain live two']);
    const scenario = { api, project, env: { bin: (claude as { bin: string }).bin, apiUrl: api.url, home: join(configDir, '..', 'home'), configDir } } as unknown as Scenario;
    expect((await resumedHistory(scenario, fork)).filter((l) => l.startsWith('user: '))).toEqual(['user: plain live one', 'user: plain live two']);
    // Nothing was rewritten under the TUI: its next prompt chains onto the whole session.
    tmux.type('plain live four');
    await tmux.waitFor((s) => s.includes('OK: plain live four'), 'the answer to the fourth prompt');
    for (let i = 0; i < 50 && (await prompts(transcript)).length < 4; i++) await new Promise((res) => setTimeout(res, 100));
    expect(await prompts(transcript)).toEqual(['plain live one', 'plain live two', 'plain live three', 'plain live four']);
  });

  it('run from the TUI shell (`! rewind-app back 1`), it forks the TUI\'s own session and names the TUI it runs inside', async () => {
    tmux.type(`!${process.execPath} ${CLI} back 1 --project ${project} 2>&1 | grep -E 'Inside|refused'`);
    const screen = await tmux.waitFor((s) => /Inside Claude Code \(pid \d+\): type \/resume \S+ to continue on the fork/.test(s.replace(/\n\s*/g, ' ')), 'the inside line');
    expect(screen.replace(/\n\s*/g, ' ')).toContain(`Inside Claude Code (pid ${pid})`);
  });

  it('after the TUI is killed (kill -9) its marker is stale: the in-place rewrite goes ahead', async () => {
    process.kill(pid, 'SIGKILL');
    await tmux.waitFor((s) => s.includes('TUI-EXITED'), 'the TUI gone');
    // --force passes only the "written seconds ago" check (the `!` command above just wrote), never an open marker.
    const r = rewindApp(['back', '1', '--in-place', '--force', '--transcript', transcript, '--project', project], env(), project);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Chat rewritten in-place');
  });
});
