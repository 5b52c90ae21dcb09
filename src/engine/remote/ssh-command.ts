/**
 * How Rewind reaches another machine: the user's own `ssh` (their config, keys, agent and known
 * hosts), never a port of ours. Pure: argv in, argv out; the process is started at the edge.
 */

/** The remote commands run through a POSIX shell (sshd runs the user's login shell with `-c`). */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The ssh program and its leading arguments: `REWIND_SSH` (a path, or a path and flags), else `ssh`. */
export function sshProgram(env: NodeJS.ProcessEnv): string[] {
  const custom = env.REWIND_SSH?.trim();
  if (!custom) return ['ssh'];
  // A path with spaces is given quoted: "C:\Program Files\OpenSSH\ssh.exe" -F cfg
  const words = custom.match(/"[^"]*"|\S+/g) ?? ['ssh'];
  return words.map((w) => (w.startsWith('"') && w.endsWith('"') ? w.slice(1, -1) : w));
}

export interface SshCall {
  /** The ssh target as the user gave it: an alias of their ~/.ssh/config, user@host, host. */
  target: string;
  /** What runs there, word by word (quoted here for the remote shell). */
  remoteArgv: string[];
  /** Keep the connection checked (a long-lived pipe): dead peers are noticed within ~45 s. */
  keepAlive?: boolean;
}

/**
 * The whole argv. BatchMode: ssh never asks anything (no password prompt, and above all never
 * "accept this host key?": Rewind does not accept a host key on the user's behalf). `--` ends
 * ssh's options, so a target starting with `-` is not taken as one.
 */
export function sshArgv(env: NodeJS.ProcessEnv, call: SshCall): string[] {
  const [prog, ...lead] = sshProgram(env);
  const opts = ['-T', '-o', 'BatchMode=yes'];
  if (call.keepAlive) opts.push('-o', 'ServerAliveInterval=15', '-o', 'ServerAliveCountMax=3');
  return [prog!, ...lead, ...opts, '--', call.target, call.remoteArgv.map(shellQuote).join(' ')];
}

/** ssh's own failures exit 255; a shell that cannot find the command, 127. */
export const SSH_FAILED = 255;
export const COMMAND_NOT_FOUND = 127;

/** ssh's reason in one line: its last meaningful stderr line ("Host key verification failed."). */
export function sshReason(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^(Warning: Permanently added|@+$|Pseudo-terminal)/.test(l));
  // The host key warning is a banner of @ lines; its one useful line names the problem.
  const changed = lines.find((l) => /REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(l));
  if (changed) return 'the host key has changed (ssh refused to connect: check known_hosts)';
  const verify = lines.find((l) => /Host key verification failed/i.test(l));
  if (verify) return 'Host key verification failed (ssh does not know this host key: connect once with ssh to check and accept it)';
  return (lines.at(-1) ?? 'ssh failed').replace(/\.$/, '');
}

/** The one line for a remote that has no rewind-app on its PATH. */
export function notInstalledLine(name: string, version: string): string {
  const pkg = version && version !== 'dev' ? `rewind-app@${version}` : 'rewind-app';
  return `rewind-app is not installed on ${name}: run \`npm i -g ${pkg}\` there (it must be on the PATH of a non-interactive ssh shell)`;
}

/** Same major and minor (0.x: same minor): the contract is the same. A dev build talks to anything. */
export function compatible(local: string, remote: string): boolean {
  if (local === 'dev' || remote === 'dev') return true;
  const a = /^(\d+)\.(\d+)\./.exec(local);
  const b = /^(\d+)\.(\d+)\./.exec(remote);
  if (!a || !b) return false;
  return a[1] === b[1] && a[2] === b[2];
}
