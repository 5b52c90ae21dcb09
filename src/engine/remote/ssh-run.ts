import { spawn } from 'node:child_process';
import { RewindError } from '../errors.js';
import { compatible, COMMAND_NOT_FOUND, notInstalledLine, SSH_FAILED, sshArgv, sshReason } from './ssh-command.js';

export interface SshRun {
  code: number;
  /** What the remote printed, byte for byte (empty when `onStdout` took it as it came). */
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * Runs one command on a host through the user's ssh and gathers what it printed, as bytes: the
 * remote's output is not text of ours to decode (a decode and re-encode turned 64 MB of arbitrary
 * bytes into 121 MB). `onStdout` takes the remote's stdout as it arrives instead of gathering it.
 */
export function sshRun(env: NodeJS.ProcessEnv, target: string, remoteArgv: string[], opts: { timeoutMs?: number; onStdout?: (bytes: Buffer) => void } = {}): Promise<SshRun> {
  const [cmd, ...args] = sshArgv(env, { target, remoteArgv });
  return new Promise((resolve) => {
    const child = spawn(cmd!, args, { stdio: ['ignore', 'pipe', 'pipe'], env, windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', opts.onStdout ?? ((d: Buffer) => out.push(d)));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs) : null;
    child.once('error', (e) => {
      if (timer) clearTimeout(timer);
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      resolve({ code: SSH_FAILED, stdout: Buffer.alloc(0), stderr: Buffer.from(missing ? `${cmd}: ssh is not installed or not on the PATH (set REWIND_SSH to its path)` : e.message) });
    });
    child.once('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const stderr = Buffer.concat(err);
      resolve({ code: code ?? (signal ? SSH_FAILED : 1), stdout: Buffer.concat(out), stderr: signal && !stderr.length ? Buffer.from('the connection timed out') : stderr });
    });
  });
}

/** A failed ssh (exit 255) or a missing rewind-app (127) as one RewindError line. */
export function remoteFailure(name: string, r: SshRun, localVersion: string): RewindError | null {
  if (r.code !== SSH_FAILED && r.code !== COMMAND_NOT_FOUND) return null;
  const stderr = r.stderr.toString('utf8');
  if (r.code === SSH_FAILED) return new RewindError('REMOTE', `cannot reach ${name}: ${sshReason(stderr)}`);
  if (/rewind-app/.test(stderr) && /not found|No such file/i.test(stderr)) return new RewindError('REMOTE', notInstalledLine(name, localVersion));
  return null;
}

/** Asks the host for its rewind-app version through the user's ssh: a one-line refusal when it cannot serve us. */
export async function checkRemote(env: NodeJS.ProcessEnv, name: string, target: string, localVersion: string): Promise<string> {
  const r = await sshRun(env, target, ['rewind-app', '--version'], { timeoutMs: 60_000 });
  const failed = remoteFailure(name, r, localVersion);
  if (failed) throw failed;
  const version = r.stdout.toString('utf8').trim().split('\n').pop()?.trim() ?? '';
  if (r.code !== 0 || !version) throw new RewindError('REMOTE', `${name}: rewind-app --version failed there (exit ${r.code}): ${r.stderr.toString('utf8').trim().split('\n').pop() ?? ''}`);
  if (!compatible(localVersion, version)) {
    throw new RewindError('REMOTE', `${name} has rewind-app ${version}, this is ${localVersion}: run \`npm i -g rewind-app@${localVersion}\` there`);
  }
  return version;
}

