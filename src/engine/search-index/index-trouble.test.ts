import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ADAPTERS } from '../agents/registry.js';
import type * as AtomicWrite from '../io/atomic-write.js';
import { SearchIndex, type Source } from './search-index.js';

// The index is an accelerator, never a dependency: whatever is wrong with its folder or its files,
// a search says so in one line and still finds every prompt (rebuilt where it can write, read
// directly where it cannot). Nothing blocks on a special file.

const failWrites = vi.hoisted(() => ({ code: null as string | null }));
vi.mock('../io/atomic-write.js', async (importOriginal) => {
  const orig = await importOriginal<typeof AtomicWrite>();
  return {
    ...orig,
    writeCacheFileAtomic: (target: string, data: Buffer | readonly Buffer[]) => {
      if (failWrites.code) return Promise.reject(Object.assign(new Error(`${failWrites.code}: no space left on device, write`), { code: failWrites.code, path: target }));
      return orig.writeCacheFileAtomic(target, data);
    },
  };
});

let dir: string;
let root: string;
let cache: string;
let sources: Source[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rewind-ixt-'));
  root = join(dir, 'claude');
  cache = join(dir, 'cache');
  await mkdir(join(root, 'projects', '-work-a'), { recursive: true });
  sources = [{ adapter: ADAPTERS.claude, root }];
  failWrites.code = null;
});
afterEach(async () => {
  failWrites.code = null;
  await chmod(cache, 0o700).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

async function session(text: string): Promise<void> {
  const id = randomUUID();
  const u = randomUUID();
  const line = { parentUuid: null, isSidechain: false, userType: 'external', cwd: '/work/a', sessionId: id, version: '2.1.330', type: 'user', message: { role: 'user', content: text }, uuid: u, timestamp: new Date().toISOString() };
  await writeFile(join(root, 'projects', '-work-a', `${id}.jsonl`), `${JSON.stringify(line)}\n`);
}

/** Opens, refreshes and searches as the CLI does; every notice it gave. */
async function searchOnce(word: string): Promise<{ hits: number; notices: string[] }> {
  const ix = await withTimeout(SearchIndex.open(cache));
  await withTimeout(ix.refresh(sources));
  const r = await ix.recovering(() => ix.search(word));
  return { hits: r.totalHits, notices: ix.notices.splice(0) };
}

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('blocked')), 4000))]);
}

const idxNames = async () => (await readdir(cache)).filter((n) => n.endsWith('.idx'));

describe('a search index that cannot be read or written', () => {
  it.skipIf(process.platform === 'win32')('never opens a FIFO named *.idx: one line, then rebuilt', async () => {
    await session('kiwi fruit');
    await mkdir(cache, { recursive: true });
    execFileSync('mkfifo', [join(cache, 'seg-000000000000001-1-fifo.idx')]);
    const first = await searchOnce('kiwi');
    expect(first.hits).toBe(1);
    expect(first.notices).toEqual([expect.stringMatching(/seg-000000000000001-1-fifo\.idx is not a regular file; rebuilding it$/)]);
    // Gone, and the next run is quiet.
    expect(await idxNames()).not.toContain('seg-000000000000001-1-fifo.idx');
    expect(await searchOnce('kiwi')).toEqual({ hits: 1, notices: [] });
  });

  it('a directory or a dangling link named *.idx: one line, then rebuilt', async () => {
    await session('kiwi fruit');
    await (await SearchIndex.open(cache)).refresh(sources);
    await mkdir(join(cache, 'seg-000000000000002-1-dir.idx', 'inside'), { recursive: true });
    await symlink(join(dir, 'nowhere'), join(cache, 'seg-000000000000003-1-link.idx'));
    const first = await searchOnce('kiwi');
    expect(first.hits).toBe(1);
    expect(first.notices).toHaveLength(1);
    expect(first.notices[0]).toMatch(/is not a regular file; rebuilding it$/);
    expect(await searchOnce('kiwi')).toEqual({ hits: 1, notices: [] });
    await expect(lstat(join(cache, 'seg-000000000000003-1-link.idx'))).rejects.toThrow();
  });

  it('a segment with wrong types behind a valid checksum: one line, then rebuilt', async () => {
    await session('kiwi fruit');
    await (await SearchIndex.open(cache)).refresh(sources);
    const [seg] = await idxNames();
    const buf = await readFile(join(cache, seg!));
    const l1 = buf.indexOf(10);
    const l2 = buf.indexOf(10, l1 + 1);
    const [hLen, , eLen, lLen] = buf.toString('latin1', l1 + 1, l2).split(' ').map(Number) as [number, number, number, number];
    const header = JSON.parse(buf.toString('utf8', l2 + 1, l2 + 1 + hLen)) as { files: Record<string, unknown>[]; promptCount: unknown };
    const rest = buf.subarray(l2 + 1 + hLen);
    expect(rest.length).toBe(eLen + lLen);
    const variants: ((h: typeof header) => unknown)[] = [
      (h) => ({ ...h, files: { 0: h.files[0] } }),
      (h) => ({ ...h, files: [{ ...h.files[0], path: 7 }] }),
      (h) => ({ ...h, files: [{ ...h.files[0], fp: null }] }),
      (h) => ({ ...h, files: [{ ...h.files[0], prompts: [0, 99] }] }),
      (h) => ({ ...h, files: [{ ...h.files[0], summaryAt: [1e9, 5] }] }),
      (h) => ({ ...h, promptCount: '1' }),
    ];
    for (const v of variants) {
      const hb = Buffer.from(JSON.stringify(v(header)));
      await writeFile(join(cache, seg!), Buffer.concat([buf.subarray(0, l1 + 1), Buffer.from(`${hb.length} ${crc32(hb)} ${eLen} ${lLen}\n`), hb, rest]));
      const r = await searchOnce('kiwi');
      expect(r.hits).toBe(1);
      expect(r.notices).toEqual([expect.stringMatching(/; rebuilding it$/)]);
      for (const n of await idxNames()) if (n !== seg) await rm(join(cache, n));
    }
  });

  it('a cache that is not a folder (cannot be written): one line, the sessions are read directly', async () => {
    await session('kiwi fruit');
    await writeFile(cache, 'not a folder');
    for (let run = 0; run < 2; run++) {
      const r = await searchOnce('kiwi');
      expect(r.hits).toBe(1);
      expect(r.notices).toEqual([expect.stringMatching(/^search index: cannot .*; reading the sessions directly$/)]);
    }
  });

  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)('a read-only cache with a damaged segment: one line, sessions read directly, new ones found', async () => {
    await session('kiwi fruit');
    await (await SearchIndex.open(cache)).refresh(sources);
    await writeFile(join(cache, 'seg-000000000000009-1-bad.idx'), 'garbage');
    await chmod(cache, 0o500);
    await session('kiwi pie');
    const r = await searchOnce('kiwi');
    expect(r.hits).toBe(2);
    expect(r.notices).toHaveLength(1);
    expect(r.notices[0]).toMatch(/reading the sessions directly$/);
  });

  it('a full disk: one line, the results are still right, and the next run with space writes it', async () => {
    await session('kiwi fruit');
    await (await SearchIndex.open(cache)).refresh(sources);
    await session('kiwi pie');
    failWrites.code = 'ENOSPC';
    const r = await searchOnce('kiwi');
    expect(r.hits).toBe(2);
    expect(r.notices).toEqual([expect.stringMatching(/^search index: cannot write .*ENOSPC.*; reading the sessions directly$/)]);
    failWrites.code = null;
    expect(await searchOnce('kiwi')).toEqual({ hits: 2, notices: [] });
  });

  it('a long-lived index that cannot write still compacts in memory, and finds every append', async () => {
    await session('kiwi fruit');
    const ix = await SearchIndex.open(cache);
    await ix.refresh(sources);
    failWrites.code = 'EROFS';
    const [name] = (await readdir(join(root, 'projects', '-work-a'))).filter((n) => n.endsWith('.jsonl'));
    const file = join(root, 'projects', '-work-a', name!);
    const first = JSON.parse((await readFile(file, 'utf8')).trim()) as Record<string, unknown>;
    for (let i = 0; i < 30; i++) {
      await writeFile(file, `${JSON.stringify({ ...first, uuid: randomUUID(), parentUuid: first.uuid, message: { role: 'user', content: `kiwi number ${i}` } })}\n`, { flag: 'a' });
      await ix.refreshFile(ADAPTERS.claude, root, file);
    }
    expect(ix.notices).toEqual([expect.stringMatching(/EROFS.*; reading the sessions directly$/)]);
    expect(ix.search('kiwi').totalHits).toBe(31);
    expect((ix as unknown as { segments: unknown[] }).segments.length).toBeLessThanOrEqual(13);
    // Nothing on disk was removed: the next run (with a writable cache) starts from what was there.
    expect(await idxNames()).toHaveLength(1);
  });
});
