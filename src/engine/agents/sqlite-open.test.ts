import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapterFor } from './registry.js';
import { openStateOf } from './open-session.js';
import { sessionRef } from './sqlite-sessions.js';
import { storeProcessMarkers } from './sqlite-open.js';
import type { ProcessInfo } from '../io/process-list.js';
import { tempDir } from '../../../test/temp.js';

const FIX = join(import.meta.dirname, '../../../test/fixtures');

describe('storeProcessMarkers (pure)', () => {
  const p = (pid: number, argv: string[], ppid: number | null = 1, cwd = '/w'): ProcessInfo => ({ pid, ppid, argv, cwd });
  const BIN = '/x/node_modules/opencode-linux-x64/bin/opencode';
  it('a CLI process holding the store: its -s session (exact) or its folder; run is busy; the launcher, other stores, non-session commands and Rewind\'s own serve are left out', () => {
    const all = [
      p(10, [BIN], 1, '/tui'),
      p(11, [BIN, '-s', 'ses_abc123'], 1, '/tui2'),
      p(12, ['node', '/x/node_modules/opencode-ai/bin/opencode', 'run', '-s', 'ses_run1', 'hi']),
      p(13, [BIN, 'run', '-s', 'ses_run1', 'hi'], 12, '/r'),
      p(14, [BIN, 'serve', '--hostname', '127.0.0.1', '--port', '0', '--pure'], 1, '/s'),
      p(15, [BIN, 'serve', '--port', '4096'], 1, '/s2'),
      p(16, [BIN, 'models']),
      p(17, [BIN, 'run', '--fork', '-s', 'ses_abc123', 'x'], 1, '/f'),
      p(18, [BIN, '-s', 'ses_other'], 1, '/other-home'),
      p(19, ['/usr/bin/vim', 'opencode']),
    ];
    const holds = (pid: number) => pid !== 12 && pid !== 18;
    expect(storeProcessMarkers('opencode', all, holds)).toEqual([
      { sessionId: null, cwd: '/tui', pid: 10, status: 'unknown', since: null },
      { sessionId: 'ses_abc123', cwd: '/tui2', pid: 11, status: 'unknown', since: null },
      { sessionId: 'ses_run1', cwd: '/r', pid: 13, status: 'busy', since: null },
      { sessionId: null, cwd: '/s2', pid: 15, status: 'unknown', since: null },
      { sessionId: null, cwd: '/f', pid: 17, status: 'busy', since: null },
    ]);
    // Where open files cannot be read: every CLI process, the launcher through its child.
    expect(storeProcessMarkers('opencode', all.slice(2, 4), () => null).map((m) => m.pid)).toEqual([13]);
  });
});

/** A stand-in for the CLI: a script named like it, holding the store open (as the real one does) until killed. */
async function fakeCli(dir: string, command: string, db: string, args: string[], cwd: string): Promise<ChildProcess> {
  const script = join(dir, command);
  await writeFile(script, '#!/bin/sh\nexec 3<"$FAKE_DB"\nwhile :; do sleep 1; done\n');
  await chmod(script, 0o755);
  const child = spawn('/bin/sh', [script, ...args], { cwd, env: { ...process.env, FAKE_DB: db }, stdio: 'ignore' });
  // Until the shell has the store open.
  const { holdsFile } = await import('./sqlite-open.js');
  for (let i = 0; i < 100 && holdsFile(child.pid!, db) !== true; i++) await new Promise((r) => setTimeout(r, 50));
  return child;
}

const CASES = [
  { agent: 'opencode', fixture: 'opencode-1.18.33', db: 'opencode.db', linear: 'ses_de19e15c0ffejFs1eUcW7jGVjR' },
  { agent: 'kilo', fixture: 'kilo-7.7.7', db: 'kilo.db', linear: 'ses_de19ab0aaffel1veBywVgF8mbs' },
] as const;

describe.runIf(process.platform === 'linux').each(CASES)('$agent: a running CLI holding the store', (c) => {
  it('opens its -s session: an in-place rewind is refused (force or not), a fork goes ahead and says how to continue; closed, nothing is open', async () => {
    const a = adapterFor(c.agent);
    const home = await tempDir(`${c.agent}-open-`);
    await cp(join(FIX, c.fixture), home, { recursive: true });
    const root = a.root({ HOME: join(home, 'home') });
    const db = join(root, c.db);
    const path = sessionRef(db, c.linear);
    const prompt = (await a.timeline(path)).prompts[1]!.uuid;
    expect(await openStateOf(a, path, root)).toBeNull();
    const cli = await fakeCli(home, c.agent, db, ['-s', c.linear], home);
    try {
      expect(await openStateOf(a, path, root)).toEqual({ agent: c.agent, pid: cli.pid, status: 'unknown', since: null, exact: true });
      const req = { transcriptPath: path, promptUuid: prompt, agentRoot: root, dryRun: true, force: true } as Parameters<NonNullable<typeof a.rewind>>[0];
      await expect(a.rewind!({ ...req, mode: 'in-place' })).rejects.toMatchObject({ code: 'SESSION_OPEN' });
      const fork = await a.rewind!({ ...req, mode: 'fork' });
      expect(fork.open).toMatchObject({ pid: cli.pid, exact: true });
      // Another store's process (the same CLI with another home) is not this store's.
      const other = join(home, 'other.db');
      await writeFile(other, '');
      const stranger = await fakeCli(join(home, 'home'), c.agent, other, ['-s', c.linear], home);
      try {
        cli.kill('SIGKILL');
        await new Promise((r) => cli.once('exit', r));
        expect(await openStateOf(a, path, root)).toBeNull();
      } finally {
        stranger.kill('SIGKILL');
      }
    } finally {
      cli.kill('SIGKILL');
    }
  });
});
