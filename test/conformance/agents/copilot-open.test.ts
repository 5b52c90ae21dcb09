import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copilot } from '../../../src/engine/agents/copilot/adapter.js';
import { COPILOT_CLI, copilotEnv, ensureNpmCli, orSkip } from './npm-cli.js';
import { killTree } from './kill-tree.js';
import { tempDir } from '../../temp.js';

const COPILOT = orSkip('GitHub Copilot CLI', ensureNpmCli(COPILOT_CLI));

/**
 * Issue #36 with the real Copilot CLI: while it works on a prompt (its model never answers), its
 * session is open by its pid (the `.hold` it keeps flocked); after a kill -9 its `inuse.<pid>.*`
 * files stay, and are stale (nobody holds the lock).
 */
describe.runIf(COPILOT && process.platform === 'linux')('a session open in the real Copilot CLI', () => {
  let server: Server | null = null;
  let child: ChildProcess | null = null;
  afterAll(async () => {
    if (child) killTree(child);
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r) ?? r(null));
  });

  it('open by its pid while it runs; after kill -9 the markers stay and are stale', async () => {
    // A model that takes the request and never answers: the CLI stays on its prompt.
    server = createServer(() => undefined);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const home = await tempDir('rewind-copilot-open-');
    const project = await tempDir('rewind-copilot-open-project-');
    const cmd = COPILOT!.cmd;
    child = spawn(cmd[0]!, [...cmd.slice(1), '-p', 'never answered', '--allow-all'], { cwd: project, env: copilotEnv(home, url), stdio: 'ignore' });
    const states = join(home, '.copilot', 'session-state');
    const lockOf = () => {
      for (const id of existsSync(states) ? readdirSync(states) : []) {
        const lock = readdirSync(join(states, id)).find((n) => /^inuse\.\d+\.lock$/.test(n));
        if (lock) return { id, pid: Number(/\d+/.exec(lock)![0]), dir: join(states, id) };
      }
      return null;
    };
    let held = lockOf();
    for (const end = Date.now() + 90_000; !held && Date.now() < end; held = lockOf()) await new Promise((r) => setTimeout(r, 250));
    expect(held, 'Copilot never marked its session in use').not.toBeNull();
    const root = copilot.root({ ...process.env, HOME: home });
    let open = await copilot.openSessions!(root);
    for (let i = 0; i < 40 && open.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      open = await copilot.openSessions!(root);
    }
    expect(open).toEqual([{ sessionId: held!.id, cwd: null, pid: held!.pid, status: 'unknown', since: expect.any(String) }]);
    // kill -9: no exit handler runs, the files stay, and nobody holds the lock any more.
    killTree(child);
    await new Promise((r) => (child!.exitCode !== null || child!.signalCode !== null ? r(null) : child!.once('exit', r)));
    for (let i = 0; i < 40; i++) {
      try {
        process.kill(held!.pid, 0);
        await new Promise((r) => setTimeout(r, 100));
      } catch {
        break;
      }
    }
    expect(readdirSync(held!.dir).filter((n) => n.startsWith('inuse.')).sort()).toEqual([`inuse.${held!.pid}.hold`, `inuse.${held!.pid}.lock`]);
    expect(await copilot.openSessions!(root)).toEqual([]);
  }, 180_000);
});
