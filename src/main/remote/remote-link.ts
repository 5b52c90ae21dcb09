import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { compatible, sshArgv, sshReason } from '../../engine/remote/ssh-command.js';
import type { Result } from '../../shared/contract.js';
import { REMOTE_PROTOCOL, ServerFrameSchema } from '../../shared/remote-protocol.js';

export type LinkState = 'connecting' | 'connected' | 'lost';

export interface LinkStatus {
  state: LinkState;
  /** One line: why it is lost, or what it is doing. */
  message: string | null;
  version: string | null;
}

export interface LinkOptions {
  name: string;
  target: string;
  env: NodeJS.ProcessEnv;
  localVersion: string;
  onStatus(s: LinkStatus): void;
  onEvent(e: unknown): void;
  /** Backoff steps between reconnects (ms); the last repeats. */
  backoffMs?: number[];
}

const BACKOFF = [1_000, 2_000, 5_000, 10_000, 30_000];
const CALL_TIMEOUT_MS = 10 * 60_000;

/**
 * One remote host: `ssh target rewind-app serve --stdio`, kept open. Calls are answered by id;
 * a lost connection fails what was in flight with one line (the host's own journal and locks make
 * each operation all or nothing there) and reconnects with backoff, or at once on `reconnect()`.
 */
export class RemoteLink {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private pending = new Map<number, { resolve: (r: Result<unknown>) => void; timer: NodeJS.Timeout }>();
  private status: LinkStatus = { state: 'connecting', message: null, version: null };
  private attempt = 0;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  /** Calls waiting for a connection being made. */
  private waiters = new Set<() => void>();

  constructor(private readonly o: LinkOptions) {
    this.connect();
  }

  get current(): LinkStatus {
    return this.status;
  }

  private set(s: LinkStatus): void {
    this.status = s;
    this.o.onStatus(s);
    if (s.state !== 'connecting') for (const w of [...this.waiters]) w();
  }

  private connect(): void {
    if (this.closed) return;
    this.set({ state: 'connecting', message: null, version: this.status.version });
    const [cmd, ...args] = sshArgv(this.o.env, { target: this.o.target, remoteArgv: ['rewind-app', 'serve', '--stdio'], keepAlive: true });
    const child = spawn(cmd!, args, { stdio: ['pipe', 'pipe', 'pipe'], env: this.o.env, windowsHide: true });
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-8192);
    });
    child.once('error', (e) => {
      stderr += (e as NodeJS.ErrnoException).code === 'ENOENT' ? `${cmd}: ssh is not installed or not on the PATH` : e.message;
    });
    const lines = createInterface({ input: child.stdout!, crlfDelay: Infinity });
    lines.on('line', (line) => this.frame(line));
    child.once('close', (code) => {
      if (this.child !== child) return;
      this.child = null;
      this.failPending(`lost the connection to ${this.o.name}`);
      if (this.closed) return;
      const why = code === 127 ? `rewind-app is not installed on ${this.o.name}` : stderr.trim() ? sshReason(stderr) : `the connection to ${this.o.name} ended`;
      this.set({ state: 'lost', message: why, version: this.status.version });
      this.schedule();
    });
  }

  private frame(line: string): void {
    let f;
    try {
      f = ServerFrameSchema.safeParse(JSON.parse(line));
    } catch {
      return;
    }
    if (!f.success) return;
    const frame = f.data;
    if (frame.t === 'hello') {
      if (frame.protocol !== REMOTE_PROTOCOL || !compatible(this.o.localVersion, frame.version)) {
        this.set({ state: 'lost', message: `${this.o.name} has rewind-app ${frame.version}, this is ${this.o.localVersion}: run \`npm i -g rewind-app@${this.o.localVersion}\` there`, version: frame.version });
        this.closed = true;
        this.child?.kill();
        return;
      }
      this.attempt = 0;
      this.set({ state: 'connected', message: null, version: frame.version });
    } else if (frame.t === 'result') {
      const p = this.pending.get(frame.id);
      if (!p) return;
      this.pending.delete(frame.id);
      clearTimeout(p.timer);
      p.resolve(frame.result as Result<unknown>);
    } else {
      this.o.onEvent(frame.event);
    }
  }

  private schedule(): void {
    if (this.closed || this.retry) return;
    const steps = this.o.backoffMs ?? BACKOFF;
    const wait = steps[Math.min(this.attempt, steps.length - 1)]!;
    this.attempt++;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect();
    }, wait);
    this.retry.unref?.();
  }

  private failPending(message: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve({ ok: false, error: { code: 'REMOTE', message } });
      this.pending.delete(id);
    }
  }

  /** Now, not at the next backoff step. */
  reconnect(): void {
    if (this.closed) return;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.attempt = 0;
    if (!this.child) this.connect();
  }

  /** One operation on the host, answered there; waits briefly for a connection being made. */
  async call(op: string, payload: unknown, waitMs = 15_000): Promise<Result<unknown>> {
    if (this.status.state === 'connecting') {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.waiters.delete(done);
          resolve();
        };
        const t = setTimeout(done, waitMs);
        this.waiters.add(done);
      });
    }
    const child = this.child;
    if (this.status.state !== 'connected' || !child?.stdin) return { ok: false, error: { code: 'REMOTE', message: `${this.o.name} is not connected${this.status.message ? `: ${this.status.message}` : ''}` } };
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ ok: false, error: { code: 'REMOTE', message: `${this.o.name} did not answer in time` } });
      }, CALL_TIMEOUT_MS);
      timer.unref?.();
      this.pending.set(id, { resolve, timer });
      child.stdin!.write(`${JSON.stringify({ t: 'call', id, op, payload })}\n`);
    });
  }

  /** Ends the connection for good (the host was removed, or the app quits). */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.failPending(`${this.o.name} was disconnected`);
    this.child?.stdin?.end();
    this.child?.kill();
    this.child = null;
  }

  /** For tests: the ssh process, to kill it as a dropped connection would. */
  get process(): ChildProcess | null {
    return this.child;
  }
}
