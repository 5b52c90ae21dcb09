import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyClaudeHome, tempDir } from '../../../test/fixtures.js';
import { pidDomain, procStartOf } from '../../engine/io/process-alive.js';
import { adapterFor } from '../../engine/agents/registry.js';
import { RewindService } from './rewind-service.js';
import { OpenWatch } from './open-watch.js';
import type { ResponseOf, RewindEvent } from '../../shared/contract.js';

// The window learns that an agent opened, changed or quit a session without reading anything again:
// the service watches the agents' marker folders and looks again on a timer (a crash leaves its marker).

const ID = '2ea8980a-26fe-4928-aab5-4ebf6074b664';
let root: string;
let service: RewindService;
const events: RewindEvent[] = [];
const made: string[] = [];
const children: ChildProcess[] = [];

async function fakeTui(): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(c);
  await new Promise((r) => c.once('spawn', r));
  return c;
}
const marker = (c: ChildProcess, status: string) => JSON.stringify({ pid: c.pid, sessionId: ID, cwd: '/home/dev/projects/linear', startedAt: Date.now(), procStart: procStartOf(c.pid!), pidDomain: pidDomain(), status, kind: 'interactive' });
const changes = () => events.filter((e) => e.type === 'sessionsChanged').length;
async function until(what: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (await what()) return;
  throw new Error('timed out');
}
async function openOf(): Promise<unknown> {
  const list = await service.handle('listSessions', {});
  return list.ok ? (list.value as ResponseOf<'listSessions'>).sessions.find((x) => x.id === ID)?.open : 'error';
}

beforeAll(async () => {
  root = await copyClaudeHome();
  made.push(dirname(root));
  const elsewhere = await tempDir('rewind-open-watch-');
  made.push(elsewhere);
  const none = join(elsewhere, 'none');
  // The timer is long here: only the marker folder's watch can tell the service in time.
  service = new RewindService({ claudeRoot: root, roots: { codex: none, droid: none, qwen: none, gemini: none, copilot: none }, prefsFile: join(elsewhere, 'prefs.json'), cacheDir: join(elsewhere, 'cache'), env: { HOME: elsewhere }, openRecheckMs: 600_000 });
  service.onEvent((e) => events.push(e));
  await service.start();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await service.close();
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

describe.runIf(process.platform === 'linux')('open sessions followed without a re-read', () => {
  it('a Claude Code marker written, turned idle and removed: each a sessionsChanged, and the list says so', async () => {
    expect(await openOf()).toBeUndefined();
    const tui = await fakeTui();
    const dir = join(root, 'sessions');
    await mkdir(dir, { recursive: true });
    let n = changes();
    await writeFile(join(dir, `${tui.pid}.json`), marker(tui, 'busy'));
    await until(() => changes() > n);
    expect(await openOf()).toMatchObject({ agent: 'claude', pid: tui.pid, status: 'busy' });
    n = changes();
    await writeFile(join(dir, `${tui.pid}.json`), marker(tui, 'idle'));
    await until(() => changes() > n);
    expect(await openOf()).toMatchObject({ status: 'idle' });
    n = changes();
    await rm(join(dir, `${tui.pid}.json`));
    await until(() => changes() > n);
    expect(await openOf()).toBeUndefined();
  });

  it('a crash (the marker stays, its pid gone) is seen by the timer; a look with nothing changed says nothing', async () => {
    const tui = await fakeTui();
    const dir = join(root, 'sessions');
    await writeFile(join(dir, `${tui.pid}.json`), marker(tui, 'idle'));
    let said = 0;
    const roots = [{ adapter: adapterFor('claude'), root }];
    const w = new OpenWatch(() => roots, () => said++, 200);
    try {
      await w.start();
      await new Promise((r) => setTimeout(r, 700));
      expect(said).toBe(0);
      tui.kill('SIGKILL');
      await until(() => said === 1);
      await new Promise((r) => setTimeout(r, 500));
      expect(said).toBe(1);
    } finally {
      await w.close();
    }
  });
});
