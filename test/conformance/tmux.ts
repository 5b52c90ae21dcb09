import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A process and every descendant, parents first (Linux `/proc`; these tests run on Linux). */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
  return out;
}

/**
 * One private tmux server (its socket in the test's temp dir, never in TMPDIR's tmux-<uid>; no
 * tmux.conf read) with one window: a real agent TUI typed into as a user would, its screen read back.
 */
export class Tmux {
  readonly socket: string;
  private startedAt = 0;
  constructor(private readonly dir: string) {
    this.socket = join(dir, 'tmux.sock');
  }

  static available(): boolean {
    return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
  }

  private tmux(args: string[]): string {
    // The server takes its global environment from this client: only what tmux itself needs.
    const env = { PATH: process.env.PATH, HOME: this.dir, LANG: 'C.UTF-8' };
    return execFileSync('tmux', ['-u', '-f', '/dev/null', '-S', this.socket, ...args], { encoding: 'utf8', timeout: 10_000, env });
  }

  /**
   * Starts `cmd` in `cwd` with exactly `env` (`env -i`: nothing of the test runner's environment
   * reaches the agent; the runner's `CI=true` made Gemini CLI start headless and Droid's Ink draw
   * nothing until exit). LANG defaults to C.UTF-8. The pane stays after it exits so its last words
   * can be read. The script is kept beside the socket (`tui.sh`) to start it again by hand.
   */
  start(cwd: string, env: NodeJS.ProcessEnv, cmd: string[]): void {
    const vars = Object.entries({ LANG: 'C.UTF-8', ...env }).filter((e): e is [string, string] => e[1] !== undefined);
    const script = join(this.dir, 'tui.sh');
    writeFileSync(script, `#!/bin/sh\nexec env -i ${vars.map(([k, v]) => quote(`${k}=${v}`)).join(' ')} ${cmd.map(quote).join(' ')}\n`);
    chmodSync(script, 0o755);
    this.startedAt = Date.now();
    this.tmux(['new-session', '-d', '-s', 'w', '-x', '160', '-y', '45', '-c', cwd, `${quote(script)}; echo TUI-EXITED; sleep 600`]);
  }

  /** Waits for the TUI's first screen (`what`) and logs how long it took since `start`: a loaded machine's number for the report. */
  async firstScreen(name: string, what: (screen: string) => boolean, ms: number): Promise<string> {
    const s = await this.waitFor(what, 'its first screen', ms);
    console.log(`${name}: first screen after ${((Date.now() - this.startedAt) / 1000).toFixed(1)} s`);
    return s;
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', 'w', '-S', '-200']);
  }

  /** Types text literally, then Enter. */
  type(text: string): void {
    this.tmux(['send-keys', '-t', 'w', '-l', text]);
    execFileSync('sleep', ['0.3']);
    this.tmux(['send-keys', '-t', 'w', 'Enter']);
  }

  /** Presses one key (tmux key name: Enter, Escape, C-c). */
  key(name: string): void {
    this.tmux(['send-keys', '-t', 'w', name]);
  }

  async waitFor(what: (screen: string) => boolean, label: string, ms = 60_000): Promise<string> {
    let s = '';
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
      s = this.screen();
      if (what(s)) return s;
    }
    throw new Error(`the TUI never showed ${label}:\n${s.slice(-3000)}`);
  }

  /**
   * Ends the TUI and everything it started (kill -9, so no exit handler writes after the test), then
   * the server, and waits until they are gone: an agent still writing its logs or state into the
   * test's home would recreate the run's TMPDIR after its teardown removed it.
   */
  async kill(): Promise<void> {
    const pane = Number(spawnSync('tmux', ['-S', this.socket, 'list-panes', '-a', '-F', '#{pane_pid}'], { encoding: 'utf8', timeout: 10_000 }).stdout?.trim().split('\n')[0]);
    const pids = Number.isInteger(pane) && pane > 0 ? processTree(pane) : [];
    for (const pid of pids.reverse()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    spawnSync('tmux', ['-S', this.socket, 'kill-server'], { timeout: 10_000 });
    for (const end = Date.now() + 10_000; pids.some(alive) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
  }
}
