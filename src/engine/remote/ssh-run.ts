import { spawn } from 'node:child_process';
import { RewindError } from '../errors.js';
import { compatible, COMMAND_NOT_FOUND, notInstalledLine, SSH_FAILED, sshArgv, sshReason } from './ssh-command.js';

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
export function remoteFailure(name: string, r: SshRun, localVersion: string): RewindError | null {
  if (r.code === SSH_FAILED) return new RewindError('REMOTE', `cannot reach ${name}: ${sshReason(r.stderr)}`);
  if (r.code === COMMAND_NOT_FOUND && /rewind-app/.test(r.stderr) && /not found|No such file/i.test(r.stderr)) return new RewindError('REMOTE', notInstalledLine(name, localVersion));
  return null;
}

/** Asks the host for its rewind-app version through the user's ssh: a one-line refusal when it cannot serve us. */
export async function checkRemote(env: NodeJS.ProcessEnv, name: string, target: string, localVersion: string): Promise<string> {
  const r = await sshRun(env, target, ['rewind-app', '--version'], { timeoutMs: 60_000 });
  const failed = remoteFailure(name, r, localVersion);
  if (failed) throw failed;
  const version = r.stdout.trim().split('\n').pop()?.trim() ?? '';
  if (r.code !== 0 || !version) throw new RewindError('REMOTE', `${name}: rewind-app --version failed there (exit ${r.code}): ${r.stderr.trim().split('\n').pop() ?? ''}`);
  if (!compatible(localVersion, version)) {
    throw new RewindError('REMOTE', `${name} has rewind-app ${version}, this is ${localVersion}: run \`npm i -g rewind-app@${localVersion}\` there`);
  }
  return version;
}

