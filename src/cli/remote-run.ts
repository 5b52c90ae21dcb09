import { spawn } from 'node:child_process';
import { RewindError } from '../engine/errors.js';
import { COMMAND_NOT_FOUND, notInstalledLine, SSH_FAILED, sshArgv, sshReason } from '../engine/remote/ssh-command.js';
import type { CliIO } from './io.js';

declare const __APP_VERSION__: string;
export const LOCAL_VERSION = typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : 'dev';

export interface SshRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one command on a host through the user's ssh and gathers what it printed. */
export function sshRun(env: NodeJS.ProcessEnv, target: string, remoteArgv: string[], opts: { timeoutMs?: number } = {}): Promise<SshRun> {
  const [cmd, ...args] = sshArgv(env, { target, remoteArgv });
  return new Promise((resolve) => {
    const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'], env, windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs) : null;
    child.once('error', (e) => {
      if (timer) clearTimeout(timer);
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      resolve({ code: SSH_FAILED, stdout: '', stderr: missing ? `${cmd}: ssh is not installed or not on the PATH (set REWIND_SSH to its path)` : e.message });
    });
    child.once('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({ code: code ?? (signal ? SSH_FAILED : 1), stdout: Buffer.concat(out).toString('utf8'), stderr: signal && !stderr ? 'the connection timed out' : stderr });
    });
  });
}

/** A failed ssh (exit 255) or a missing rewind-app (127) as one RewindError line. */
export function remoteFailure(name: string, r: SshRun): RewindError | null {
  if (r.code === SSH_FAILED) return new RewindError('REMOTE', `cannot reach ${name}: ${sshReason(r.stderr)}`);
  if (r.code === COMMAND_NOT_FOUND && /rewind-app/.test(r.stderr) && /not found|No such file/i.test(r.stderr)) return new RewindError('REMOTE', notInstalledLine(name, LOCAL_VERSION));
  return null;
}

/**
 * `--host NAME`: the same command, run on that host by its own rewind-app, next to its files.
 * What it prints and its exit code are the remote's; ssh's own failures are one line.
 */
export async function runOnHost(name: string, argv: string[], io: CliIO): Promise<number> {
  const { hostNamed, readRemotes, remotesFile } = await import('../engine/remote/remotes.js');
  const { hosts } = await readRemotes(remotesFile(io.env));
  const host = hostNamed(hosts, name);
  const r = await sshRun(io.env, host.target, ['rewind-app', ...argv]);
  const failed = remoteFailure(name, r);
  if (failed) throw failed;
  if (r.stdout) io.out(r.stdout.replace(/\n$/, ''));
  if (r.stderr) io.err(r.stderr.replace(/\n$/, ''));
  return r.code;
}

/** argv without `--host NAME` / `--host=NAME` (the rest goes to the remote as the user typed it). */
export function withoutHost(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a === '--host') {
      i++;
      continue;
    }
    if (a.startsWith('--host=')) continue;
    out.push(a);
  }
  return out;
}
