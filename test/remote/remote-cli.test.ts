import { cp, mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, CC_HOME, LINEAR, runBuiltCli } from '../fixtures.js';
import { SSHD, startSshd, type TestSshd } from './sshd.js';
import { tempEnv } from '../temp.js';

/**
 * `--host` and `remote add` against a real OpenSSH server on 127.0.0.1: the "remote" is a temp
 * HOME holding the fixtures, with this checkout's CLI on its PATH; the local side has no sessions
 * at all, so whatever is listed, found or written came through ssh and happened over there.
 */
async function listAll(dir: string): Promise<string[]> {
  return ((await readdir(dir, { recursive: true })) as string[]).sort();
}

const onLinux = process.platform === 'linux';
describe.skipIf(!onLinux)('remote hosts over the user\'s ssh', () => {
  let sshd: TestSshd;
  let local: string;
  let env: NodeJS.ProcessEnv;
  let remoteClaude: string;
  let remoteProject: string;
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runBuiltCli(args, { ...env, ...extra });
  /** The same command run on the "remote" directly: what `--host` must reproduce. */
  const there = (args: string[]) => runBuiltCli(args, { PATH: process.env.PATH, ...tempEnv(), HOME: sshd.remoteHome, REWIND_NO_FORWARD: '1' });

  beforeAll(async () => {
    if (!SSHD) throw new Error('sshd not found: install openssh-server (.ci/run does)');
    if (!existsSync(BUILT_CLI)) throw new Error('build the CLI first (npm run build)');
    sshd = await startSshd({ remoteBin: BUILT_CLI, remoteEnv: { REWIND_NO_FORWARD: '1' } });
    remoteClaude = join(sshd.remoteHome, '.claude');
    await cp(CC_HOME, remoteClaude, { recursive: true });
    // Old enough not to count as live (an in-place rewrite of a live session is refused).
    const past = new Date(Date.now() - 3600_000);
    for (const d of await readdir(join(remoteClaude, 'projects'))) {
      for (const f of await readdir(join(remoteClaude, 'projects', d))) if (f.endsWith('.jsonl')) await utimes(join(remoteClaude, 'projects', d, f), past, past);
    }
    remoteProject = join(sshd.remoteHome, 'work');
    await mkdir(remoteProject);
    await writeFile(join(remoteProject, 'app.txt'), 'one\n');
    local = await mkdtemp(join(tmpdir(), 'rewind-remote-local-'));
    env = { PATH: process.env.PATH, ...tempEnv(), HOME: local, REWIND_CONFIG_DIR: join(local, 'config'), REWIND_SSH: sshd.sshWrapper, REWIND_NO_FORWARD: '1' };
  }, 60_000);

  afterAll(async () => {
    await sshd?.stop();
    if (local) await rm(local, { recursive: true, force: true });
  });

  it('remote add checks the host and remembers it; list shows it', async () => {
    const add = await cli(['remote', 'add', sshd.alias, '--name', 'box']);
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/^Added box \(rewind-test-remote\), rewind-app /);
    const list = await cli(['remote', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toMatchObject([{ name: 'box', target: sshd.alias }]);
  });

  it('sessions, search and timeline with --host answer what the host answers', async () => {
    for (const args of [['sessions', '--json'], ['search', 'version', '--json'], ['timeline', LINEAR.slice(CC_HOME.length + 1).split('/').pop()!.replace('.jsonl', ''), '--json']]) {
      const remote = await cli([...args, '--host', 'box']);
      const direct = await there(args);
      expect(remote.status, remote.stderr).toBe(direct.status);
      expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(direct.stdout));
    }
    const count = (stdout: string) => (JSON.parse(stdout) as { sessions: unknown[] }).sessions.length;
    expect(count((await cli(['sessions', '--json', '--host', 'box'])).stdout)).toBeGreaterThan(0);
    // Nothing is read locally: the local side has no sessions at all.
    const here = await cli(['sessions', '--json']);
    expect(here.status).toBe(1);
    expect(here.stderr).toMatch(/config dir not found/);
  });

  it('a fork, an in-place rewrite and undo change files on the host only', async () => {
    const transcript = join(remoteClaude, LINEAR.slice(CC_HOME.length + 1));
    const before = await readFile(transcript);
    const localBefore = await listAll(local);
    const fork = await cli(['back', '1', '--transcript', transcript, '--project', remoteProject, '--json', '--host', 'box']);
    expect(fork.status, fork.stderr).toBe(0);
    const forked = JSON.parse(fork.stdout) as { forkPath: string };
    expect(forked.forkPath.startsWith(remoteClaude)).toBe(true);
    expect((await stat(forked.forkPath)).size).toBeLessThan(before.length);
    const inPlace = await cli(['back', '2', '--in-place', '--transcript', transcript, '--project', remoteProject, '--host', 'box']);
    expect(inPlace.status, inPlace.stderr).toBe(0);
    expect((await readFile(transcript)).length).toBeLessThan(before.length);
    const undo = await cli(['undo', '--project', remoteProject, '--host', 'box']);
    expect(undo.status, undo.stderr).toBe(0);
    expect(await readFile(transcript)).toEqual(before);
    // Nothing was written on the local side.
    expect(await listAll(local)).toEqual(localBefore);
  });

  it('a checkpoint and a restore run next to the files on the host', async () => {
    const cp1 = await cli(['checkpoint', '--label', 'start', '--project', remoteProject, '--json', '--host', 'box']);
    expect(cp1.status, cp1.stderr).toBe(0);
    const id = (JSON.parse(cp1.stdout) as { id: string }).id;
    await writeFile(join(remoteProject, 'app.txt'), 'two\n');
    await writeFile(join(remoteProject, 'new.txt'), 'made later\n');
    const dry = await cli(['restore', id, '--dry-run', '--project', remoteProject, '--host', 'box']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(await readFile(join(remoteProject, 'app.txt'), 'utf8')).toBe('two\n');
    // The host's own answer, exit code included: files changed outside an agent are conflicts (6).
    const refused = await cli(['restore', id, '--project', remoteProject, '--host', 'box']);
    expect(refused.status).toBe(6);
    expect(refused.stderr).toMatch(/would be overwritten/);
    const r = await cli(['restore', id, '--force', '--project', remoteProject, '--host', 'box']);
    expect(r.status, r.stderr).toBe(0);
    expect(await readFile(join(remoteProject, 'app.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(join(remoteProject, 'new.txt'))).toBe(false);
  });

  it('exit codes are the remote command\'s', async () => {
    const r = await cli(['back', '999', '--transcript', join(remoteClaude, LINEAR.slice(CC_HOME.length + 1)), '--project', remoteProject, '--host', 'box']);
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/rewind-app:/);
  });

  it('an unknown host name, a changed host key and a refused login are one line each', async () => {
    const unknown = await cli(['sessions', '--host', 'nope']);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toMatch(/no remote host named "nope".*remote add/);

    const good = await readFile(sshd.knownHosts, 'utf8');
    await writeFile(sshd.knownHosts, good.replace(/ssh-ed25519 \S+/, sshd.otherHostKeyPub));
    try {
      const r = await cli(['sessions', '--host', 'box']);
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^rewind-app: cannot reach box: the host key has changed/);
      expect(r.stderr).not.toMatch(/\bat .*\.m?js:\d+/);
      // Never accepted on the user's behalf: the file still holds the (wrong) key it held.
      expect(await readFile(sshd.knownHosts, 'utf8')).not.toBe(good);
    } finally {
      await writeFile(sshd.knownHosts, good);
    }
    await writeFile(sshd.knownHosts, '');
    try {
      const r = await cli(['remote', 'add', sshd.alias, '--name', 'other']);
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/cannot reach other: Host key verification failed/);
      expect(await readFile(sshd.knownHosts, 'utf8')).toBe('');
    } finally {
      await writeFile(sshd.knownHosts, good);
    }
    // A refused login: the same host, without the user's key (ssh adds identity files up, so a config without it).
    const noKeyConfig = join(sshd.dir, 'ssh_config_nokey');
    await writeFile(noKeyConfig, (await readFile(sshd.clientConfig, 'utf8')).replace(/^\s*IdentityFile .*$/m, '  IdentityAgent none'));
    const r = await cli(['sessions', '--host', 'box'], { REWIND_SSH: `ssh -F ${noKeyConfig}` });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^rewind-app: cannot reach box: .*Permission denied/);
  });

  it('a host without rewind-app gets the one line that says how to install it', async () => {
    const bare = await startSshd({ remoteBin: BUILT_CLI, remoteEnv: { PATH: '/usr/bin:/bin' } });
    try {
      const r = await cli(['remote', 'add', bare.alias, '--name', 'bare'], { REWIND_SSH: bare.sshWrapper });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/rewind-app is not installed on bare: run `npm i -g rewind-app(@[\d.]+)?` there/);
      const list = JSON.parse((await cli(['remote', 'list', '--json'])).stdout) as { name: string }[];
      expect(list.map((h) => h.name)).toEqual(['box']);
    } finally {
      await bare.stop();
    }
  });

  it('--host is refused by commands that do not run on a host', async () => {
    const r = await cli(['export', '--host', 'box']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/export does not take --host/);
  });
});
