import { rmSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rm, writeFile, appendFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CC_HOME, tempDir } from '../../../test/fixtures.js';
import type { AgentAdapter } from '../agents/adapter.js';
import { ADAPTERS } from '../agents/registry.js';
import { runJobs } from './parallel.js';
import { SearchIndex, type Source } from './search-index.js';
import { decodeSegment, fileMeta, fileSummary, segmentText } from './segment.js';

const WORKER_TS = resolve(import.meta.dirname, 'index-worker.ts');

/** The worker entry from source (through tsx), as the built CLI runs out/cli/lazy/search-index-worker.mjs. */
async function workerShim(dir: string): Promise<string> {
  const shim = join(dir, 'index-worker.mjs');
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  await writeFile(shim, `import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait import(${JSON.stringify(pathToFileURL(WORKER_TS).href)});\n`);
  return shim;
}

let dir: string;
let root: string;
beforeEach(async () => {
  dir = await tempDir('rewind-ixpar-');
  root = join(dir, 'claude');
  // The real Claude Code transcripts, and more sessions made from them in other projects.
  await cp(CC_HOME, root, { recursive: true });
  const projects = join(root, 'projects');
  let n = 0;
  for (const p of await readdir(projects)) {
    for (const f of (await readdir(join(projects, p))).filter((x) => x.endsWith('.jsonl'))) {
      const text = await readFile(join(projects, p, f), 'utf8');
      for (let k = 0; k < 3; k++) {
        await mkdir(join(projects, `-copy-${k}`), { recursive: true });
        await writeFile(join(projects, `-copy-${k}`, `${String(n++).padStart(8, '0')}-${f}`), text);
      }
    }
  }
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sources = (): Source[] => [{ adapter: ADAPTERS.claude, root }];

/** Everything the index's segments hold, records in path order (which thread, and so which segment, read a file differs). */
async function contents(cache: string) {
  const names = (await readdir(cache)).filter((n) => n.endsWith('.idx')).sort();
  expect(names.length).toBeGreaterThan(0);
  const all = [];
  for (const name of names) {
    const seg = decodeSegment(name, await readFile(join(cache, name)));
    all.push(
      ...seg.files.map((f, i) => {
        const [first, count] = f.prompts;
        const texts = Array.from({ length: count }, (_, k) => segmentText(seg, first + k));
        const folded = seg.folded.toString('utf8', seg.foldStarts[first]!, seg.foldStarts[first + count]!);
        const meta = fileMeta(seg, i);
        const summary = fileSummary(seg, i);
        const { prompts: _p, meta: _m, summaryAt: _s, ...rec } = f;
        return { rec, texts, folded, meta, summary };
      }),
    );
  }
  return all.sort((a, b) => a.rec.path.localeCompare(b.rec.path));
}

describe('a parallel index build', () => {
  it('gives the same index as one thread (worker threads on the real transcripts)', async () => {
    const one = await SearchIndex.open(join(dir, 'one'));
    const r1 = await one.refresh(sources(), { now: 1 });
    const many = await SearchIndex.open(join(dir, 'many'));
    const progress: number[] = [];
    const r2 = await many.refresh(sources(), { now: 1, parallel: { workerScript: await workerShim(dir), threads: 3, minBytes: 0 }, onProgress: (p) => progress.push(p.filesDone) });
    expect(r1.scanned).toBeGreaterThanOrEqual(12);
    expect(r2).toMatchObject({ scanned: r1.scanned, skipped: [], pending: [] });
    expect(r2.byWorkers).toBeGreaterThan(0);
    expect(r1.byWorkers).toBe(0);
    expect(progress).toHaveLength(r1.scanned);
    expect(await contents(join(dir, 'many'))).toEqual(await contents(join(dir, 'one')));
    // Each worker wrote its records to a segment of its own: the index opened again from disk is the same.
    const reopened = await SearchIndex.open(join(dir, 'many'));
    expect(reopened.summaries({ now: 1 })).toEqual(one.summaries({ now: 1 }));
    expect(reopened.search('the')).toEqual(one.search('the'));
    for (const q of ['the', 'file', '"hello world"']) expect(many.search(q)).toEqual(one.search(q));
    expect(many.summaries({ now: 1 })).toEqual(one.summaries({ now: 1 }));
  }, 60_000);

  it('redoes on this thread what a worker could not do (a worker that fails to start)', async () => {
    const bad = join(dir, 'broken-worker.mjs');
    await writeFile(bad, 'throw new Error("no worker here");\n');
    const one = await SearchIndex.open(join(dir, 'one'));
    await one.refresh(sources(), { now: 1 });
    const many = await SearchIndex.open(join(dir, 'many'));
    const rep = await many.refresh(sources(), { now: 1, parallel: { workerScript: bad, threads: 2, minBytes: 0 } });
    expect(rep).toMatchObject({ skipped: [], byWorkers: 0, scanned: 12 });
    expect(await contents(join(dir, 'many'))).toEqual(await contents(join(dir, 'one')));
  }, 60_000);
});

describe('worker threads started before the files are listed (a cold build)', () => {
  it('are ended unused when there is too little to read, and the build is done here', async () => {
    const one = await SearchIndex.open(join(dir, 'one'));
    await one.refresh(sources(), { now: 1 });
    const small = await SearchIndex.open(join(dir, 'small'));
    const rep = await small.refresh(sources(), { now: 1, parallel: { workerScript: await workerShim(dir), threads: 3, minBytes: 1e12, alsoHere: true } });
    expect(rep).toMatchObject({ byWorkers: 0, scanned: 12, skipped: [] });
    expect(await contents(join(dir, 'small'))).toEqual(await contents(join(dir, 'one')));
  }, 60_000);
});

describe('a worker that cannot write its segment', () => {
  it('leaves its jobs to this thread, which redoes every one', async () => {
    const jobs = ADAPTERS.claude.sessionFilesSync!(root).map((file) => ({ agent: 'claude', file, prev: null, prevPrompts: null }));
    const ran: number[] = [];
    const reported: number[] = [];
    // The segment's folder does not exist: the worker's write fails after it indexed its files.
    const written = await runJobs(
      jobs,
      { workerScript: await workerShim(dir), threads: 2, dir: join(dir, 'no-such-folder'), segmentName: (t) => `seg-w${t}.idx` },
      async (i) => void ran.push(i),
      (o) => reported.push(o.i),
      () => undefined,
    );
    expect(written).toEqual([]);
    expect(reported).toEqual([]);
    expect(ran.sort((a, b) => a - b)).toEqual(jobs.map((_, i) => i));
  }, 60_000);
});

describe('files changing while the index is built', () => {
  /** Claude's adapter, with `during` run for each file right after the scan read it (before its summary). */
  function withHook(during: (path: string) => Promise<void>): AgentAdapter {
    const base = ADAPTERS.claude;
    return { ...base, summarizeFile: async (f, now, ends) => (await during(f.path), base.summarizeFile!(f, now, ends)) };
  }

  it('a file appended during the build: what was read is indexed, the rest is read as an append next time', async () => {
    const cache = join(dir, 'cache');
    const files = ADAPTERS.claude.sessionFilesSync!(root);
    const target = files[0]!.path;
    const last = (await readFile(target, 'utf8')).trimEnd().split('\n').reverse().map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => typeof l.uuid === 'string' && l.isSidechain === false)!;
    const { toolUseResult: _t, ...rest } = last;
    const line = { ...rest, type: 'user', parentUuid: last.uuid, uuid: '00000000-0000-4000-8000-0000000c0ffe', message: { role: 'user', content: 'zqxappended while indexing' }, timestamp: new Date().toISOString() };
    let appended = false;
    const adapter = withHook(async (p) => {
      if (p !== target || appended) return;
      appended = true;
      await appendFile(target, `${JSON.stringify(line)}\n`);
    });
    const ix = await SearchIndex.open(cache);
    const rep = await ix.refresh([{ adapter, root }]);
    expect(appended).toBe(true);
    expect(rep.skipped).toEqual([]);
    expect(ix.search('zqxappended').totalHits).toBe(0); // not read yet: its size was taken before
    const before = ix.summary(target)!.promptCount!;
    const again = await (await SearchIndex.open(cache)).refresh(sources());
    expect(again).toMatchObject({ appended: 1, scanned: 0, reindexed: 0 });
    const ix2 = await SearchIndex.open(cache);
    expect(ix2.search('zqxappended').sessions.map((s) => s.transcriptPath)).toEqual([target]);
    expect(ix2.summary(target)!.promptCount).toBe(before + 1);
  });

  it('a file deleted during the build is skipped with its reason, the rest indexed, and named until gone', async () => {
    const cache = join(dir, 'cache');
    const files = ADAPTERS.claude.sessionFilesSync!(root).sort((a, b) => b.size - a.size);
    // Deleted while the first (biggest) file is being indexed: it is listed but gone when its turn comes.
    // At once (not on the thread pool): this thread's other jobs run while an async unlink waits, and
    // with fast summaries they reached the last file before it was gone.
    const victim = files[files.length - 1]!.path;
    const adapter = withHook(async (p) => {
      if (p === files[0]!.path) rmSync(victim, { force: true });
    });
    const ix = await SearchIndex.open(cache);
    const rep = await ix.refresh([{ adapter, root }]);
    expect(rep.skipped).toEqual([{ path: victim, reason: 'vanished while indexing' }]);
    expect(rep.scanned).toBe(files.length - 1);
    expect(ix.search('the').notSearched).toEqual([{ path: victim, reason: 'vanished while indexing' }]);
    const next = await SearchIndex.open(cache);
    const rep2 = await next.refresh(sources());
    expect(rep2).toMatchObject({ scanned: 0, skipped: [], deleted: 0 });
    expect(next.search('the').notSearched).toEqual([]);
    expect(next.fileCount).toBe(files.length - 1);
  });
});
