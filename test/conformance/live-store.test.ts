import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opencode } from '../../src/engine/agents/opencode/adapter.js';
import { kilo } from '../../src/engine/agents/kilo/adapter.js';
import type { AgentAdapter } from '../../src/engine/agents/adapter.js';
import { ensureNpmCli, orSkip } from './agents/npm-cli.js';
import { startChatApi, type ChatApi } from './agents/chat-api.js';
import { KILO, OPENCODE, setupStore, storeEnv, type StoreCli } from './agents/store-cli.js';
import { ensureCliBuilt, rewindApp } from './harness.js';
import { Tmux } from './tmux.js';
import { tempDir } from '../temp.js';

const CASES: { cli: StoreCli; adapter: AgentAdapter }[] = [
  { cli: OPENCODE, adapter: opencode },
  { cli: KILO, adapter: kilo },
];

/**
 * OpenCode's and Kilo's TUIs (interactive, in tmux) with Rewind's plugin installed: a prompt typed
 * after a hand edit gets Rewind's checkpoint of the whole tree from the plugin running inside the
 * real TUI (the restore preview takes the prompt's file back and keeps the hand-made one), and the
 * TUI, idle on its session, holds it open: an in-place rewind is refused.
 */
describe.each(CASES)('the real $adapter.displayName TUI with Rewind\'s plugin', ({ cli, adapter }) => {
  const CLI = orSkip(adapter.displayName, ensureNpmCli(cli.cli));
  const run = !!CLI && process.platform === 'linux' && Tmux.available();
  let api: ChatApi;
  let tmux: Tmux;
  let project: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    if (!run) return;
    ensureCliBuilt();
    api = await startChatApi();
    const base = await tempDir(`rewind-live-${adapter.id}-`);
    project = join(base, 'proj');
    const bin = CLI!.cmd[0]!;
    env = { ...storeEnv(cli, bin, base), REWIND_NO_FORWARD: '1' };
    await setupStore(cli, base, project, api.url, { git: false });
    await writeFile(join(project, 'keep.txt'), 'there before\n');
    const inst = rewindApp(['hooks', 'install', '--agent', adapter.id, '--scope', 'user'], env, project);
    expect(inst.code, inst.stderr).toBe(0);
    await mkdir(join(base, 'tmp'), { recursive: true });
    const e = { ...env, TERM: 'xterm-256color', CI: undefined, NO_COLOR: undefined, TMPDIR: join(base, 'tmp') };
    tmux = new Tmux(base);
    // Exactly this environment (env -i): a runner's CI=true would change how the TUI draws.
    tmux.start(project, e, [bin]);
    // Kilo's TUI takes about 40 s to draw its first screen on this machine.
    await tmux.waitFor((s) => /Ask anything/.test(s), 'its prompt box', 240_000);
    await writeFile(join(project, 'hand.txt'), 'made by hand\n');
    tmux.type('WRITE a.txt from the tui');
    const a = join(project, 'a.txt');
    for (const end = Date.now() + 180_000; Date.now() < end; await new Promise((r) => setTimeout(r, 500))) {
      if (existsSync(a) && (await readFile(a, 'utf8')).includes('from the tui')) break;
    }
    expect(await readFile(a, 'utf8')).toBe('from the tui\n');
  }, 600_000);

  afterAll(async () => {
    await tmux?.kill();
    await api?.close();
  });

  it.runIf(run)('the prompt has a Rewind checkpoint from the plugin; the session is open and an in-place rewind refused', { retry: 1 }, async () => {
    const l = rewindApp(['sessions', '--json'], env, project);
    expect(l.code, l.stderr).toBe(0);
    const s = (JSON.parse(l.stdout) as { sessions: { transcriptPath: string; agent: string; open?: { pid: number } | null }[] }).sessions.find((x) => x.agent === adapter.id)!;
    expect(s.open).toMatchObject({ agent: adapter.id, exact: false });
    const tl = JSON.parse(rewindApp(['timeline', s.transcriptPath, '--json'], env, project).stdout) as { prompts: { uuid: string; checkpoint: unknown }[] };
    expect(tl.prompts.map((p) => !!p.checkpoint)).toEqual([true]);
    const dry = rewindApp(['restore', tl.prompts[0]!.uuid, '--transcript', s.transcriptPath, '--project', project, '--dry-run', '--json'], env, project);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/Source: Rewind checkpoint/);
    const plan = JSON.parse(dry.stdout) as { changes: { path: string; action: string }[] };
    expect(plan.changes.map((c) => [c.action, c.path])).toEqual([['delete', 'a.txt']]);
    const r = rewindApp(['back', '1', '--in-place', '--force', '--transcript', s.transcriptPath, '--project', project], env, project);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`open in ${adapter.displayName} (pid ${s.open!.pid})`);
  });
});
