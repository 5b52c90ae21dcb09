import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * One private tmux server (its socket in the test's temp dir, never in TMPDIR's tmux-<uid>) with one
 * window: a real agent TUI typed into as a user would, its screen read back.
 */
export class Tmux {
  readonly socket: string;
  constructor(dir: string) {
    this.socket = join(dir, 'tmux.sock');
  }

  static available(): boolean {
    return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8', timeout: 10_000 });
  }

  /** Starts `script` (a shell file) in `cwd`; the pane stays after it exits so its last words can be read. */
  start(cwd: string, script: string): void {
    this.tmux(['new-session', '-d', '-s', 'w', '-x', '160', '-y', '45', '-c', cwd, `${script}; echo TUI-EXITED; sleep 600`]);
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
