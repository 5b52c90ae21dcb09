import { appendFile, cp, mkdir, mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RewindService } from '../../src/main/service/rewind-service.js';
import type { RequestOf, ResponseOf, RewindEvent } from '../../src/shared/contract.js';
import type { OperationName } from '../../src/shared/operations.js';
import { parseRemoteRef, remoteRef } from '../../src/shared/remote-ref.js';
import { BUILT_CLI, CC_HOME, LINEAR } from '../fixtures.js';
import { SSHD, startSshd, type TestSshd } from './sshd.js';
import { tempEnv } from '../temp.js';

/**
 * The window's side of a remote host: the service keeps `ssh host rewind-app serve --stdio` open,
 * lists and searches the host's sessions beside this machine's, and runs every operation on a
 * remote session over there. A real sshd on 127.0.0.1; the host is a temp HOME with the fixtures.
 */
type Res<K extends OperationName> = { ok: true; value: ResponseOf<K> } | { ok: false; error: { code: string; message: string } };
const ok = <T,>(r: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(process.platform !== 'linux')('remote hosts in the window (service over ssh)', () => {
  let sshd: TestSshd;
  let local: string;
  let service: RewindService;
  let project: string;
  let transcript: string;
  const events: RewindEvent[] = [];

  beforeAll(async () => {
    if (!SSHD) throw new Error('sshd not found: install openssh-server (.ci/run does)');
    if (!existsSync(BUILT_CLI)) throw new Error('build the CLI first (npm run build)');
    sshd = await startSshd({ remoteBin: BUILT_CLI, remoteEnv: { REWIND_NO_FORWARD: '1' } });
    project = join(sshd.remoteHome, 'linear');
    await mkdir(project);
    await writeFile(join(project, 'a.txt'), 'v0\n');
    // The host's session ran in a folder that exists there.
    const dir = join(sshd.remoteHome, '.claude', 'projects', project.replace(/[/.]/g, '-'));
    await mkdir(dir, { recursive: true });
    transcript = join(dir, LINEAR.split('/').pop()!);
    await writeFile(transcript, (await readFile(LINEAR, 'utf8')).replaceAll('/home/dev/projects/linear', project));
    const past = new Date(Date.now() - 3600_000);
    await utimes(transcript, past, past);
    await cp(join(CC_HOME, 'file-history'), join(sshd.remoteHome, '.claude', 'file-history'), { recursive: true }).catch(() => undefined);
    local = await mkdtemp(join(tmpdir(), 'rewind-remote-window-'));
    await mkdir(join(local, '.claude', 'projects'), { recursive: true });
    service = new RewindService({
      claudeRoot: join(local, '.claude'),
      watch: false,
      remotes: true,
      version: 'dev',
      env: { PATH: process.env.PATH, ...tempEnv(), HOME: local, REWIND_CONFIG_DIR: join(local, 'config'), REWIND_SSH: sshd.sshWrapper, REWIND_CACHE_DIR: join(local, 'cache') },
    });
    service.onEvent((e) => events.push(e));
    await service.start();
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await sshd?.stop();
    if (local) await rm(local, { recursive: true, force: true });
  });

  const call = <K extends OperationName>(op: K, req: RequestOf<K>) => service.handle(op, req) as Promise<Res<K>>;
  const hostState = async () => ok(await call('listRemotes', {})).hosts[0]?.state;

  it('adds a host from the window and lists its sessions beside this machine\'s, grouped by host', async () => {
    const added = ok(await call('addRemote', { target: sshd.alias, name: 'box' }));
    expect(added.hosts.map((h) => h.name)).toEqual(['box']);
    await until('the host to connect', async () => (await hostState()) === 'connected');
    expect(events.some((e) => e.type === 'remoteStatus' && e.host.state === 'connected')).toBe(true);
    const list = ok(await call('listSessions', {}));
    const remote = list.sessions.filter((s) => s.host === 'box');
    expect(remote.map((s) => s.id)).toContain(LINEAR.split('/').pop()!.replace('.jsonl', ''));
    for (const s of remote) expect(parseRemoteRef(s.transcriptPath)?.host).toBe('box');
    expect(list.sessions.filter((s) => !s.host)).toEqual([]);
  });

  it('searches the host and opens a remote session\'s timeline and turn', async () => {
    const found = ok(await call('searchPrompts', { query: 'version two' }));
    expect(found.matches.some((m) => m.transcriptPath === remoteRef('box', transcript))).toBe(true);
    const t = ok(await call('getTimeline', { session: remoteRef('box', transcript) }));
    expect(t.prompts.length).toBeGreaterThan(2);
    const turn = ok(await call('getTurn', { session: remoteRef('box', transcript), promptUuid: t.prompts[1]!.uuid }));
    expect(turn.text).toMatch(/version two/);
  });

  it('follows the host live: a prompt the agent appends there reaches the window as an event on the remote ref', async () => {
    const ref = remoteRef('box', transcript);
    const before = ok(await call('getTimeline', { session: ref }));
    const lines = (await readFile(transcript, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const prompt = lines.find((l) => l.type === 'user' && (l.message as { content?: unknown }).content === 'WRITE a.txt version one')!;
    const last = [...lines].reverse().find((l) => typeof l.uuid === 'string')!;
    const appended = { ...prompt, uuid: '11111111-2222-4333-8444-555555555555', parentUuid: last.uuid, promptId: '11111111-2222-4333-8444-666666666666', timestamp: new Date().toISOString(), message: { role: 'user', content: 'LIVE prompt written on the host' } };
    const seen = events.length;
    await appendFile(transcript, `${JSON.stringify(appended)}\n`);
    await until('the host\'s watcher to tell the window', () => events.slice(seen).some((e) => (e.type === 'timelineChanged' && e.session === ref) || (e.type === 'sessionUpdated' && e.session.transcriptPath === ref)), 30_000);
    const after = ok(await call('getTimeline', { session: ref }));
    expect(after.prompts.length).toBe(before.prompts.length + 1);
    expect(after.prompts.at(-1)!.text).toBe('LIVE prompt written on the host');
    const updated = events.slice(seen).find((e) => e.type === 'sessionUpdated');
    if (updated?.type === 'sessionUpdated') expect(updated.session.host).toBe('box');
    // Back as it was for the tests after this one (its mtime old again: not live).
    await writeFile(transcript, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const past = new Date(Date.now() - 3600_000);
    await utimes(transcript, past, past);
    await until('the host to read it back', async () => ok(await call('getTimeline', { session: ref })).prompts.length === before.prompts.length, 30_000);
  });

  it('forks on the host with a preview, shows the resume command for that host, and undoes there', async () => {
    const t = ok(await call('getTimeline', { session: remoteRef('box', transcript) }));
    const target = t.prompts.filter((p) => p.lane === 0).at(-1)!;
    const preview = ok(await call('previewRewind', { session: remoteRef('box', transcript), promptUuid: target.uuid, mode: 'fork' }));
    const before = await readdir(join(transcript, '..'));
    const applied = ok(await call('applyRewind', { session: remoteRef('box', transcript), promptUuid: target.uuid, mode: 'fork', expectSize: preview.chat.sizeAtPlan ?? undefined }));
    expect(parseRemoteRef(applied.forkPath!)?.host).toBe('box');
    const forkPath = parseRemoteRef(applied.forkPath!)!.path;
    expect(existsSync(forkPath)).toBe(true);
    expect((await readdir(join(transcript, '..'))).length).toBe(before.length + 1);
    expect(applied.resumeCommand).toBe(`${sshd.sshWrapper} -t ${sshd.alias} 'cd ${project} && claude --resume ${applied.forkSessionId}'`);
    // Nothing landed on this machine.
    expect(await readdir(join(local, '.claude', 'projects'))).toEqual([]);
    ok(await call('undo', { project: remoteRef('box', project) }));
    expect(existsSync(forkPath)).toBe(false);
  });

  it('a connection killed mid-operation leaves the host all or nothing, and the link comes back', async () => {
    const t = ok(await call('getTimeline', { session: remoteRef('box', transcript) }));
    const target = t.prompts.filter((p) => p.lane === 0).at(-2)!;
    const original = await readFile(transcript);
    const pending = call('applyRewind', { session: remoteRef('box', transcript), promptUuid: target.uuid, mode: 'in-place' });
    // @ts-expect-error: reaching into the hub for the test's kill
    service.remotes.linkOf('box').process.kill('SIGKILL');
    const r = await pending;
    // The operation may have answered before the kill was seen: the link is said lost once its ssh ends.
    await until('the link to be said lost', async () => events.some((e) => e.type === 'remoteStatus' && e.host.state === 'lost'), 30_000);
    await until('the link to come back', async () => (await hostState()) === 'connected', 30_000);
    // Whatever the host did, it did whole: the transcript is the original or the complete rewrite.
    const now = await readFile(transcript);
    if (r.ok || !now.equals(original)) {
      expect(now.length).toBeLessThan(original.length);
      expect(original.subarray(0, now.length).equals(now) || now.toString('utf8').split('\n').filter(Boolean).every((l) => JSON.parse(l))).toBe(true);
      ok(await call('undo', { project: remoteRef('box', project) }));
      expect(await readFile(transcript)).toEqual(original);
    } else {
      expect(r.error.code).toBe('REMOTE');
    }
  });

  it('a host that cannot be reached is one line on its group, and Reconnect tries again', async () => {
    const good = await readFile(sshd.knownHosts, 'utf8');
    await writeFile(sshd.knownHosts, good.replace(/ssh-ed25519 \S+/, sshd.otherHostKeyPub));
    try {
      // @ts-expect-error: the test's kill
      service.remotes.linkOf('box').process.kill('SIGKILL');
      // The kill itself, then the first reconnect that meets the changed key.
      await until('the host key to be refused', async () => /host key/.test(ok(await call('listRemotes', {})).hosts[0]!.message ?? ''));
      const h = ok(await call('listRemotes', {})).hosts[0]!;
      expect(h.state).toBe('lost');
      expect(h.message).toMatch(/host key has changed/);
      expect(h.message!.split('\n')).toHaveLength(1);
      const list = ok(await call('listSessions', {}));
      expect(list.sessions.filter((s) => s.host === 'box')).toEqual([]);
    } finally {
      await writeFile(sshd.knownHosts, good);
    }
    ok(await call('reconnectRemote', { name: 'box' }));
    await until('the host to reconnect', async () => (await hostState()) === 'connected');
  });

  it('a request naming two machines is refused in one line', async () => {
    const r = await call('comparePrompts', { a: { session: remoteRef('box', transcript), promptUuid: 'x' }, b: { session: join(local, 'x.jsonl'), promptUuid: 'y' } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/two machines/);
  });
});
