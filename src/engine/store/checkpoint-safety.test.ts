import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { handleAgentHook } from '../hooks/handle-hook.js';
import { run } from '../../cli/main.js';
import { takeCheckpoint } from './checkpoint.js';
import { listCheckpoints, readManifest } from './manifest.js';
import { ObjectStore } from './objects.js';
import { resolveRestoreTarget, restore } from './restore.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every blob's content in the store, as text. */
async function blobs(root: string): Promise<string[]> {
  const dir = join(root, '.agent', 'rewind', 'objects');
  const out: string[] = [];
  for (const sub of await readdir(dir).catch(() => [] as string[])) {
    for (const f of await readdir(join(dir, sub)).catch(() => [] as string[])) out.push(await readFile(join(dir, sub, f), 'utf8'));
  }
  return out;
}

async function hostile() {
  const base = await tempDir('rewind-hostile-');
  const project = join(base, 'proj');
  await mkdir(join(base, 'outside'), { recursive: true });
  await writeFile(join(base, 'outside', 'key.txt'), 'SECRET OUTSIDE THE PROJECT\n');
  await mkdir(project);
  await writeFile(join(project, 'a.txt'), 'a\n');
  await symlink('../outside', join(project, 'shared'));
  return { base, project };
}

const hook = (project: string, p: Record<string, unknown>) => handleAgentHook('claude', { session_id: 's1', cwd: project, ...p }, { CLAUDE_PROJECT_DIR: project });

describe('a checkpoint never follows a symlinked directory (walk and named paths)', () => {
  it('records the link as a link; a tool naming a file under it copies nothing from outside', async () => {
    const { project } = await hostile();
    await hook(project, { hook_event_name: 'UserPromptSubmit', prompt_id: 'p1' });
    await hook(project, { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'shared', 'key.txt') } });
    await hook(project, { hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'shared', 'key.txt') } });
    await hook(project, { hook_event_name: 'UserPromptSubmit', prompt_id: 'p2' });
    const list = await listCheckpoints(project);
    expect(list.length).toBeGreaterThanOrEqual(2);
    for (const c of list) {
      const m = await readManifest(project, c.id);
      expect(m.entries.filter((e) => e[0].startsWith('shared')).map((e) => [e[0], e[1], e[2]])).toEqual([['shared', 'l', '../outside']]);
    }
    expect((await blobs(project)).some((b) => b.includes('SECRET'))).toBe(false);
    // agent-writes names no hash of the outside file either.
    const writes = await readFile(join(project, '.agent', 'rewind', 'agent-writes.jsonl'), 'utf8').catch(() => '');
    expect(writes).not.toMatch(/"ref":"[0-9a-f]{64}"/);
  });

  it('refuses a store folder shipped as a link out of the project, writing nothing there', async () => {
    const { base, project } = await hostile();
    await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
    await mkdir(join(base, 'elsewhere'));
    await symlink(join(base, 'elsewhere'), join(project, '.agent', 'rewind', 'objects'));
    await expect(takeCheckpoint({ projectRoot: project, trigger: 'manual' })).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/objects is a link: Rewind does not write through a link it did not make; nothing was written/) });
    expect(await readdir(join(base, 'elsewhere'))).toEqual([]);
  });
});

describe('FIFOs, sockets and devices are recorded as such and never opened', () => {
  it('a FIFO in the tree, named by a tool, or given as the transcript: the hooks and the checkpoint go on at once', async () => {
    const { project } = await hostile();
    execFileSync('mkfifo', [join(project, 'pipe')]);
    execFileSync('mkfifo', [join(project, 'transcript.fifo')]);
    const t0 = Date.now();
    await hook(project, { hook_event_name: 'UserPromptSubmit', prompt_id: 'p1', transcript_path: join(project, 'transcript.fifo') });
    await hook(project, { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'pipe') } });
    await hook(project, { hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'pipe') } });
    const { manifest } = await takeCheckpoint({ projectRoot: project, trigger: 'manual', touched: ['pipe'] });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(manifest.skipped).toEqual([
      { path: 'pipe', size: 0, reason: 'a FIFO: recorded, never opened' },
      { path: 'transcript.fifo', size: 0, reason: 'a FIFO: recorded, never opened' },
    ]);
    expect(manifest.entries.map((e) => e[0])).toEqual(['a.txt', 'shared']);
  });
});

describe('an unreadable or vanishing file is skipped and named; the rest of the checkpoint is taken', () => {
  it('EACCES: named in the checkpoint, `checkpoints --json` and the restore preview, and left as it is by a restore', async () => {
    const { project } = await hostile();
    await writeFile(join(project, 'locked.txt'), 'mine\n');
    await writeFile(join(project, 'b.txt'), 'b\n');
    // Root reads a chmod 000 file anyway: there the read error is injected where the store reads files.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      const real = ObjectStore.prototype.putFile;
      vi.spyOn(ObjectStore.prototype, 'putFile').mockImplementation(function (this: ObjectStore, path: string, size: number) {
        if (path.endsWith('locked.txt')) return Promise.reject(Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES' }));
        return real.call(this, path, size);
      });
    } else await chmod(join(project, 'locked.txt'), 0o000);
    const { manifest } = await takeCheckpoint({ projectRoot: project, trigger: 'manual' });
    expect(manifest.skipped).toEqual([{ path: 'locked.txt', size: 5, reason: 'unreadable (EACCES): not copied, left as it is on restore' }]);
    expect(manifest.entries.map((e) => e[0])).toEqual(['a.txt', 'b.txt', 'shared']);
    let out = '';
    expect(await run(['checkpoints', '--project', project, '--json'], { out: (s: string) => (out += s), err: () => undefined, env: { HOME: '/nonexistent-home' }, cwd: project })).toBe(0);
    expect((JSON.parse(out) as { checkpoints: { skippedPaths?: { path: string }[] }[] }).checkpoints[0]!.skippedPaths).toEqual([{ path: 'locked.txt', reason: 'unreadable (EACCES): not copied, left as it is on restore' }]);
    // The file changes after; a restore to that checkpoint names it and leaves it alone.
    vi.restoreAllMocks();
    if (!asRoot) await chmod(join(project, 'locked.txt'), 0o600);
    await writeFile(join(project, 'locked.txt'), 'changed later\n');
    await writeFile(join(project, 'b.txt'), 'b2\n');
    const target = await resolveRestoreTarget({ projectRoot: project, ref: manifest.id });
    const r = await restore(project, target, { force: true });
    expect(r.preview.skipped.map((s) => s.path)).toEqual(['locked.txt']);
    expect(r.preview.plan.changes.map((c) => c.path)).toEqual(['b.txt']);
    expect(await readFile(join(project, 'locked.txt'), 'utf8')).toBe('changed later\n');
    expect(await readFile(join(project, 'b.txt'), 'utf8')).toBe('b\n');
  });

  it('ENOENT: a file deleted between the walk and its read is named as vanished', async () => {
    const { project } = await hostile();
    await writeFile(join(project, 'gone.txt'), 'here at the walk\n');
    const real = ObjectStore.prototype.putFile;
    vi.spyOn(ObjectStore.prototype, 'putFile').mockImplementation(async function (this: ObjectStore, path: string, size: number) {
      if (path.endsWith('gone.txt')) await unlink(path); // really gone: the read below fails as it would
      return real.call(this, path, size);
    });
    const { manifest } = await takeCheckpoint({ projectRoot: project, trigger: 'manual' });
    expect(manifest.skipped).toEqual([{ path: 'gone.txt', size: 17, reason: 'vanished while the checkpoint was taken' }]);
    expect(manifest.entries.map((e) => e[0])).toEqual(['a.txt', 'shared']);
  });
});
