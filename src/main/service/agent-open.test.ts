import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINEAR, copyClaudeHome, inCopy, tempDir } from '../../../test/fixtures.js';
import { pidDomain, procStartOf } from '../../engine/io/process-alive.js';
import { RewindService } from './rewind-service.js';
import type { ResponseOf } from '../../shared/contract.js';

// The service (so the window, MCP and the HTTP API) with a session a live Claude Code has open:
// listed and timed as open, never rewritten in place (force or not), forked with the way back.

const ID = '2ea8980a-26fe-4928-aab5-4ebf6074b664';
let root: string;
let service: RewindService;
let tui: ChildProcess;
const made: string[] = [];

beforeAll(async () => {
  root = await copyClaudeHome();
  made.push(dirname(root));
  const elsewhere = await tempDir('rewind-agent-open-');
  made.push(elsewhere);
  const none = join(elsewhere, 'none');
  service = new RewindService({ claudeRoot: root, roots: { codex: none, droid: none, qwen: none, gemini: none }, prefsFile: join(elsewhere, 'prefs.json'), cacheDir: join(elsewhere, 'cache'), watch: false, env: { HOME: elsewhere }, cli: { node: '/usr/bin/node', script: '/opt/rewind/out/cli/rewind-app.mjs' } });
  // A real process standing in for the TUI, marked as Claude Code marks it (its real start time).
  tui = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((r) => tui.once('spawn', r));
  await mkdir(join(root, 'sessions'), { recursive: true });
  await writeFile(join(root, 'sessions', `${tui.pid}.json`), JSON.stringify({ pid: tui.pid, sessionId: ID, cwd: '/home/dev/projects/linear', startedAt: Date.now(), procStart: procStartOf(tui.pid!), pidDomain: pidDomain(), status: 'busy', kind: 'interactive' }));
});
afterAll(async () => {
  tui?.kill('SIGKILL');
  await service.close();
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

describe.runIf(process.platform === 'linux')('a session a running agent has open, through the service', () => {
  it('listSessions and getTimeline carry open {agent, pid, status}', async () => {
    const list = await service.handle('listSessions', {});
    expect(list.ok).toBe(true);
    const sessions = list.ok ? (list.value as ResponseOf<'listSessions'>).sessions : [];
    expect(sessions.find((x) => x.id === ID)?.open).toMatchObject({ agent: 'claude', pid: tui.pid, status: 'busy', exact: true });
    expect(sessions.filter((x) => x.open).length).toBe(1);
    const t = await service.handle('getTimeline', { session: ID });
    expect(t.ok && (t.value as ResponseOf<'getTimeline'>).session.open).toMatchObject({ agent: 'claude', pid: tui.pid, status: 'busy' });
  });

  it('an in-place rewrite is refused at preview and at apply, force too, nothing written; a fork goes ahead and says /resume', async () => {
    const path = inCopy(root, LINEAR);
    const before = await readFile(path);
    const t = await service.handle('getTimeline', { session: ID });
    const prompts = t.ok ? (t.value as ResponseOf<'getTimeline'>).prompts : [];
    const prompt = prompts[prompts.length - 1]!.uuid;
    const preview = await service.handle('previewRewind', { session: ID, promptUuid: prompt, mode: 'in-place' });
    expect(preview).toMatchObject({ ok: false, error: { code: 'SESSION_OPEN' } });
    const apply = await service.handle('applyRewind', { session: ID, promptUuid: prompt, mode: 'in-place', force: true });
    expect(apply).toMatchObject({ ok: false, error: { code: 'SESSION_OPEN', message: expect.stringContaining(`open in Claude Code (busy, pid ${tui.pid})`) } });
    expect(await readFile(path)).toEqual(before);
    const fork = await service.handle('applyRewind', { session: ID, promptUuid: prompt, mode: 'fork' });
    expect(fork.ok).toBe(true);
    const done = fork.ok ? (fork.value as ResponseOf<'applyRewind'>) : null;
    expect(done?.handBack).toContain(`type /resume ${done?.forkSessionId} in it`);
    expect(await readFile(path)).toEqual(before);
  });
});
