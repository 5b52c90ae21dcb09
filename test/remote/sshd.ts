import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/**
 * A real OpenSSH server on 127.0.0.1 for the remote tier: its own host key, one user key, and a
 * "remote" HOME of its own (set through authorized_keys' environment=, so the remote side sees a
 * temp home holding fixtures, with this checkout's CLI first on its PATH). The client side gets an
 * ssh config file and a wrapper (`REWIND_SSH`) that uses it: OpenSSH reads ~/.ssh from the passwd
 * entry, not $HOME, so a test cannot point it elsewhere through the environment.
 */
export interface TestSshd {
  /** The ssh config's Host alias for this server. */
  alias: string;
  /** The remote side's HOME. */
  remoteHome: string;
  /** A command that runs ssh with the test's config: what REWIND_SSH is set to. */
  sshWrapper: string;
  /** The client's config file (Host alias, port, key, known_hosts). */
  clientConfig: string;
  knownHosts: string;
  dir: string;
  /** A second host key, for the "host key changed" case. */
  otherHostKeyPub: string;
  stop(): Promise<void>;
}

export const SSHD = ['/usr/sbin/sshd', '/usr/local/sbin/sshd', '/opt/homebrew/sbin/sshd'].find((p) => existsSync(p)) ?? null;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function keygen(path: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path], { stdio: 'ignore' });
}

export async function startSshd(opts: { remoteBin: string; remoteEnv?: Record<string, string> }): Promise<TestSshd> {
  if (!SSHD) throw new Error('sshd not found: install openssh-server (.ci/run does on Debian)');
  const dir = mkdtempSync(join(tmpdir(), 'rewind-sshd-'));
  chmodSync(dir, 0o755);
  const remoteHome = join(dir, 'remote-home');
  const bin = join(dir, 'bin');
  mkdirSync(remoteHome, { recursive: true });
  mkdirSync(bin);
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'other_host_key'));
  keygen(join(dir, 'user_key'));
  // The remote's `rewind-app`: this checkout's built CLI.
  writeFileSync(join(bin, 'rewind-app'), `#!/bin/sh\nexec "${process.execPath}" "${opts.remoteBin}" "$@"\n`, { mode: 0o755 });
  const env = { HOME: remoteHome, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, ...opts.remoteEnv };
  const envOpts = Object.entries(env).map(([k, v]) => `environment="${k}=${v}"`).join(',');
  const userPub = readFileSync(join(dir, 'user_key.pub'), 'utf8').trim();
  writeFileSync(join(dir, 'authorized_keys'), `${envOpts} ${userPub}\n`, { mode: 0o600 });
  const port = await freePort();
  const user = userInfo().username;
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitUserEnvironment yes',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      'PidFile none',
      `AllowUsers ${user}`,
      'LogLevel ERROR',
    ].join('\n') + '\n',
  );
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const knownHosts = join(dir, 'known_hosts');
  const hostPub = readFileSync(join(dir, 'host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostPub}\n`);
  const alias = 'rewind-test-remote';
  const clientConfig = join(dir, 'ssh_config');
  writeFileSync(
    clientConfig,
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, 'user_key')}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${knownHosts}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '  ConnectTimeout 10',
      '  LogLevel ERROR',
    ].join('\n') + '\n',
  );
  const sshWrapper = join(dir, 'ssh');
  writeFileSync(sshWrapper, `#!/bin/sh\nexec ssh -F "${clientConfig}" "$@"\n`, { mode: 0o755 });
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  // Ready when it accepts a connection.
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited: ${log.trim()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`sshd did not start: ${log.trim()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    alias,
    remoteHome,
    sshWrapper,
    clientConfig,
    knownHosts,
    dir,
    otherHostKeyPub: readFileSync(join(dir, 'other_host_key.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' '),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

