import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

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

  kill(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server'], { timeout: 10_000 });
  }
}
