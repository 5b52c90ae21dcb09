import { lstatSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { AgentAdapter, SessionFile, StoreIndexEntry } from '../agents/adapter.js';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import type { SessionSummary } from '../../shared/session-schema.js';
import { highlight, parseQuery } from './fold.js';
import { encodeListSnapshot, indexDir, LIST_SNAPSHOT, LIVE_WINDOW_MS } from './list-snapshot.js';
import { listSources, type Source } from './list-sources.js';
import { indexFile, skipReason, storeSessionRecord, type FileInput, type IndexJob } from './index-file.js';
import { claimJobs, runJobs, startWorkers, stopWorkers, type ParallelOptions, type StartedWorker } from './parallel.js';
import type { ScanState } from './scan-file.js';
import { closeSegment, INDEX_VERSION, concatPacked, CorruptIndexError, openSegment, openSegmentAsync, encodeSegmentParts, fileMeta, filePrompts, fileSummary, NO_PROMPTS, segmentPacked, segmentText, type FileMeta, type FileRecord, type Segment, type SegmentInput } from './segment.js';

export { indexDir, listSources, type Source };

/** Each store's sessions as its adapter read them in this refresh (one read per store). */
type StoreCache = Map<string, Promise<Map<string, StoreIndexEntry>>>;

/** Past this many delta segments, a refresh writes one base segment holding everything. */
const MAX_SEGMENTS = 12;
/** Below this much to read, worker threads would cost more to start than they save. */
const PARALLEL_BYTES = 64 * 1024 * 1024;

interface Part {
  seg: Segment;
  file: number;
}

interface View {
  rec: FileRecord;
  parts: Part[];
  /** Its summary, parsed on first use (undefined: not yet). */
  summary?: SessionSummary | null;
}

/** A record saying the file is gone (its previous record is `rec`). */
function deletionOf(rec: FileRecord): FileInput {
  return { ...rec, mode: 'delete', from: rec.indexedTo, summary: null, meta: { prompts: [], recent: {}, leaf: null }, packed: NO_PROMPTS };
}

/** The view's summary: it is in the segment of its latest record. */
function summaryOf(v: View): SessionSummary | null {
  if (v.summary === undefined) {
    const last = v.parts[v.parts.length - 1]!;
    v.summary = fileSummary(last.seg, last.file);
  }
  return v.summary;
}

export interface RefreshProgress {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
}

export interface RefreshReport {
  scanned: number;
  appended: number;
  reindexed: number;
  deleted: number;
  bytesRead: number;
  /** Files not read (vanished, unreadable) with the reason. */
  skipped: { path: string; reason: string }[];
  /** Files left for later because the time budget ran out: searches say they were not searched. */
  pending: { path: string; size: number }[];
  /** Files indexed on worker threads (the rest on this one). */
  byWorkers: number;
  /** Paths whose summary changed (for one event each). */
  changed: string[];
}

export interface SessionHits {
  sessionId: string;
  agent: string;
  transcriptPath: string;
  title: string | null;
  cwd: string | null;
  lastActivity: string;
  /** Every matching prompt of the session (no cap). */
  count: number;
  /** Matching prompts, newest first: ids and where they are; snippets for the first few. */
  prompts: { promptUuid: string; offset: number; timestamp: string | null; snippet: string | null; highlights: [number, number][] }[];
}

export interface SearchResult {
  query: string;
  terms: string[];
  sessions: SessionHits[];
  totalHits: number;
  /** Sessions matched beyond `limit`. */
  moreSessions: number;
  /** What was not searched, and why: empty means every prompt of every session was. */
  notSearched: { path: string; reason: string }[];
  indexedFiles: number;
}

export interface RefreshOptions {
  budgetMs?: number;
  onProgress?: (p: RefreshProgress) => void;
  now?: number;
  parallel?: ParallelOptions;
  /** The sources' files as `listSources` gave them (listed while the index was being read). */
  listed?: Promise<SessionFile[][]>;
}

export interface SearchOptions {
  project?: string;
  agent?: string;
  limit?: number;
  /** Snippets per session (the rest come as ids only). */
  snippets?: number;
  /** Snippets in all, newest sessions first (the window asks for every match's, up to this many). */
  snippetBudget?: number;
  /** Matching prompts listed per session, newest first (`count` still counts every one): all when not given. */
  promptsPerSession?: number;
  /**
   * false: the sessions past `limit` are found (`moreSessions`) but their prompts are not counted,
   * and `totalHits` counts the listed sessions' only (a list that shows no total need not count them).
   */
  countPastLimit?: boolean;
}

/**
 * The persisted search and metadata index over every session of every agent in the registry: one
 * folder of segment files under the cache dir. A refresh reads only what changed: appended bytes of
 * files that grew (same inode, same first 4 KiB), whole files that shrank or were rewritten, and
 * drops deleted ones; it then writes what it learned as one new segment (atomically).
 */
export class SearchIndex {
  private views = new Map<string, View>();
  private segments: Segment[] = [];
  readonly notices: string[] = [];
  /** The last refresh, to run again after a damaged index was dropped. */
  private lastRefresh?: () => Promise<unknown>;
  /** Left out of the last refresh (budget, unreadable): searches report them. */
  private left = new Map<string, string>();

  private constructor(readonly dir: string) {}

  static async open(dir: string): Promise<SearchIndex> {
    const ix = new SearchIndex(dir);
    await ix.load();
    return ix;
  }

  /**
   * Opens the index and runs `during` while its segments are read off this thread (`cold`: there
   * are none, a first build follows). The CLI lists the session files in that time.
   */
  static async openWhile<T>(dir: string, during: (cold: boolean) => T): Promise<[SearchIndex, T]> {
    const ix = new SearchIndex(dir);
    let out!: T;
    // Called by every load that returns (a retried one has called it before its retry).
    await ix.load(false, (cold) => (out = during(cold)));
    return [ix, out];
  }

  get fileCount(): number {
    return this.views.size;
  }

  private async load(retried = false, during?: (cold: boolean) => void): Promise<void> {
    // Synchronous reads (the index lives on the CLI or a worker thread): one call per segment file
    // instead of a promise per 512 KiB piece.
    let names: string[];
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      names = readdirSync(this.dir)
        .filter((n) => n.endsWith('.idx'))
        .sort();
    } catch (e) {
      // No folder to keep it in (a read-only cache, a file in its place): every run reads the sessions.
      this.cannotWrite(`cannot use ${this.dir} (${errText(e)})`);
      during?.(true);
      return;
    }
    // What is not a regular file is never opened (a FIFO would block): the index is dropped.
    const special = names.find((n) => !isRegular(join(this.dir, n)));
    if (special !== undefined) {
      during?.(true);
      return this.discard(`${special} is not a regular file`, names);
    }
    const segs: Segment[] = [];
    let failedName: string | undefined;
    try {
      // Each segment's big read runs off this thread: the caller may list the session files meanwhile.
      const reading = Promise.allSettled(names.map((n) => openSegmentAsync(n, join(this.dir, n))));
      during?.(names.length === 0);
      const opened = await reading;
      for (const o of opened) if (o.status === 'fulfilled') segs.push(o.value);
      const failed = opened.findIndex((o) => o.status === 'rejected');
      failedName = names[failed];
      if (failed !== -1) throw (opened[failed] as PromiseRejectedResult).reason;
      let from = 0;
      for (let i = segs.length - 1; i >= 0; i--)
        if (segs[i]!.base) {
          from = i;
          break;
        }
      for (const s of segs.slice(0, from)) {
        closeSegment(s);
        await unlink(join(this.dir, s.name)).catch(() => undefined);
      }
      this.segments = segs.slice(from);
      for (const s of this.segments) this.apply(s);
    } catch (e) {
      segs.forEach(closeSegment);
      this.segments = [];
      this.views.clear();
      // Another process compacted while we listed: its new base segment holds everything.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !retried) return this.load(true);
      // Any other failure (damage, permissions, a type no check foresaw) drops the index: one line.
      this.discard(e instanceof CorruptIndexError ? e.message : `${failedName ?? 'a segment'} cannot be read (${errText(e)})`, names);
    }
  }

  /** The index cannot be written (or read): said once; from now on it is kept in memory only. */
  private readOnly = false;

  private cannotWrite(why: string): void {
    if (!this.readOnly) this.notices.push(`search index: ${why}; reading the sessions directly`);
    this.readOnly = true;
  }

  /**
   * A damaged index: said in one line, its files removed and the index rebuilt; where they cannot be
   * removed (a read-only cache), the sessions are read directly from now on.
   */
  private discard(why: string, names: string[]): void {
    let stuck: unknown;
    for (const n of names) {
      try {
        rmSync(join(this.dir, n), { recursive: true, force: true });
      } catch (e) {
        stuck ??= e;
      }
    }
    if (stuck === undefined) this.notices.push(`search index: ${why}; rebuilding it`);
    else this.cannotWrite(`${why}, and it cannot be removed (${errText(stuck)})`);
  }

  /** Writes a segment file; false when the index cannot be written (said once, kept in memory). */
  private async persist(name: string, parts: Buffer[]): Promise<boolean> {
    if (this.readOnly) return false;
    try {
      await writeCacheFileAtomic(join(this.dir, name), parts);
      return true;
    } catch (e) {
      this.cannotWrite(`cannot write ${this.dir} (${errText(e)})`);
      return false;
    }
  }

  private apply(s: Segment): void {
    s.files.forEach((rec, file) => {
      const v = this.views.get(rec.path);
      if (rec.mode === 'delete') this.views.delete(rec.path);
      else if (rec.mode === 'full') this.views.set(rec.path, { rec, parts: [{ seg: s, file }] });
      // An append that does not continue what we have is stale (another process wrote it first).
      else if (v && v.rec.indexedTo === rec.from) this.views.set(rec.path, { rec, parts: [...v.parts, { seg: s, file }] });
    });
  }

  private state(v: View): ScanState {
    const last = v.parts[v.parts.length - 1]!;
    const m = fileMeta(last.seg, last.file);
    return { indexedTo: v.rec.indexedTo, lineCount: v.rec.lineCount, counts: v.rec.counts, recent: m.recent, leaf: m.leaf };
  }

  /**
   * Brings the index up to date with the session files on disk. `budgetMs`: stop reading new work
   * after this long (the rest is `pending`, and searches say so); the CLI gives none. `parallel`:
   * a large build (no budget) is split across worker threads; the index is the same either way.
   * A damaged segment block met on the way drops the index (one notice) and the refresh starts over.
   */
  async refresh(sources: Source[], opts: RefreshOptions = {}): Promise<RefreshReport> {
    this.lastRefresh = () => this.refreshOnce(sources, opts);
    return this.writeOrRebuild(() => this.refreshOnce(sources, opts));
  }

  /**
   * `once` as the only writer; a damaged segment block met on the way drops the index (one notice)
   * and `once` runs again on an empty one.
   */
  private writeOrRebuild<T>(once: () => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      try {
        return await once();
      } catch (e) {
        if (!(e instanceof CorruptIndexError)) throw e;
        this.dropDamaged(e);
        return once();
      }
    });
  }

  /** The writer running now (a refresh, a file's refresh, a compaction, a rebuild): the next waits for it. */
  private writing: Promise<unknown> = Promise.resolve();

  /**
   * Runs `fn` once every writer before it has finished: writes, compactions and the segment list
   * never interleave (two appends seen at once by the watcher each compacted, and each compaction
   * left the other's base behind).
   */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writing.then(fn, fn);
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async refreshOnce(sources: Source[], opts: RefreshOptions): Promise<RefreshReport> {
    const t0 = Date.now();
    // A cold build that may be split starts its worker threads now: they load while the files are listed.
    const early = { started: opts.parallel && opts.budgetMs === undefined && this.views.size === 0 && this.segments.length === 0 ? startWorkers(opts.parallel) : [], used: 0 };
    try {
      return await this.refreshWith(sources, opts, t0, early);
    } finally {
      // The ones not given jobs (too little to read, fewer files than threads, a failed listing) are ended.
      stopWorkers(early.started.slice(early.used));
    }
  }

  private async refreshWith(sources: Source[], opts: RefreshOptions, t0: number, early: { started: StartedWorker[]; used: number }): Promise<RefreshReport> {
    const report: RefreshReport = { scanned: 0, appended: 0, reindexed: 0, deleted: 0, bytesRead: 0, skipped: [], pending: [], changed: [], byWorkers: 0 };
    const seen = new Set<string>();
    const work: { adapter: AgentAdapter; root: string; job: IndexJob }[] = [];
    // Every agent's listing at once: the ones without a synchronous listing wait on promises.
    const listed = await (opts.listed ?? listSources(sources));
    for (const [k, { adapter, root }] of sources.entries()) {
      for (const f of listed[k]!) {
        seen.add(f.path);
        const v = this.views.get(f.path);
        if (v && v.rec.fp.size === f.size && v.rec.fp.mtimeMs === f.mtimeMs) continue;
        work.push({ adapter, root, job: this.jobFor(adapter, f, opts.now) });
      }
    }
    // A build with a time budget (the app's) reads the newest sessions first: those are the ones
    // looked for. Without one, the biggest first: threads then finish at about the same time.
    if (opts.budgetMs === undefined) work.sort((x, y) => y.job.file.size - x.job.file.size);
    else work.sort((x, y) => y.job.file.mtimeMs - x.job.file.mtimeMs);
    const bytesTotal = work.reduce((a, w) => a + w.job.file.size, 0);
    let bytesDone = 0;
    let filesDone = 0;
    const fallback = new Map<AgentAdapter, Promise<Map<string, SessionSummary>>>();
    const stores: StoreCache = new Map();
    this.left.clear();
    const results: (FileInput | undefined)[] = new Array(work.length);
    const progressed = (i: number) => {
      bytesDone += work[i]!.job.file.size;
      opts.onProgress?.({ filesDone: ++filesDone, filesTotal: work.length, bytesDone, bytesTotal });
    };
    /** A file's outcome: its record (made here), what a worker wrote to its own segment, or why it was skipped. */
    const outcome = (i: number, rec: Pick<FileInput, 'mode' | 'from' | 'indexedTo'> | undefined, reason: string | undefined, here?: FileInput) => {
      const { job } = work[i]!;
      if (rec) {
        if (here) results[i] = here;
        report.changed.push(job.file.path);
        report.bytesRead += rec.indexedTo - rec.from;
        if (rec.mode === 'append') report.appended++;
        else if (job.prev) report.reindexed++;
        else report.scanned++;
      } else {
        report.skipped.push({ path: job.file.path, reason: reason ?? 'unreadable' });
        this.left.set(job.file.path, reason ?? 'unreadable');
      }
    };
    const local = async (i: number) => {
      const { adapter, root, job } = work[i]!;
      if (opts.budgetMs !== undefined && Date.now() - t0 > opts.budgetMs) {
        report.pending.push({ path: job.file.path, size: job.file.size });
        this.left.set(job.file.path, 'not indexed yet (indexing continues)');
        return;
      }
      try {
        const rec = adapter.storeIndex ? storeSessionRecord(adapter, job, (await this.storeEntries(stores, adapter, root, opts.now)).get(job.file.path) ?? null) : await indexFile(adapter, job, (f) => this.fallbackSummary(fallback, adapter, root, f, opts.now));
        outcome(i, rec, undefined, rec);
      } catch (e) {
        outcome(i, undefined, skipReason(e));
      }
      progressed(i);
    };
    // Only files whose adapter summarizes one file at a time can go to a worker; the rest stay here.
    const shippable = work.map((_, i) => i).filter((i) => work[i]!.adapter.summarizeFile);
    const shipBytes = shippable.reduce((a, i) => a + work[i]!.job.file.size, 0);
    const threads = Math.min(opts.parallel?.threads ?? 1, shippable.length);
    const parallel = opts.parallel && !this.readOnly && threads > 1 && opts.budgetMs === undefined && shipBytes >= (opts.parallel.minBytes ?? PARALLEL_BYTES);
    // What this thread reads besides its share of a parallel build (every file without one), once.
    let restRun: Promise<void> | null = null;
    const runRest = () =>
      (restRun ??= (async () => {
        const rest = work.map((_, i) => i).filter((i) => !parallel || !work[i]!.adapter.summarizeFile);
        await claimJobs(
          rest.map((i) => work[i]!.job),
          new Int32Array(1),
          (k) => local(rest[k]!),
        );
      })());
    // What this thread made and has not written yet, and the deletions (once), as one segment.
    const flushed = new Uint8Array(work.length);
    let deletions = false;
    const flush = async (name?: string, compact = true) => {
      const out: FileInput[] = [];
      results.forEach((r, i) => {
        if (!r || flushed[i]) return;
        flushed[i] = 1;
        out.push(r);
      });
      if (!deletions) {
        deletions = true;
        for (const [path, v] of this.views) {
          if (seen.has(path)) continue;
          out.push(deletionOf(v.rec));
          report.deleted++;
          report.changed.push(path);
        }
      }
      if (out.length > 0) await this.write(out, name, compact);
    };
    if (parallel) {
      const workers = opts.parallel!.alsoHere ? threads - 1 : threads;
      if (early.started.length >= workers) early.used = workers;
      // This thread's segment first, then one per worker, after every segment there is now: each
      // thread writes its own while the others finish (the workers' are read back once written).
      const stamp = Number(this.nextStamp());
      const name = (n: number, tag: string) => `seg-${String(n).padStart(15, '0')}-${process.pid}-${tag}.idx`;
      const written = await runJobs(
        shippable.map((i) => work[i]!.job),
        {
          ...opts.parallel!,
          threads,
          dir: this.dir,
          segmentName: (t) => name(stamp + 1 + t, `w${t}`),
          started: early.used > 0 ? early.started.slice(0, early.used) : undefined,
          afterLocal: async () => {
            await runRest();
            await flush(name(stamp, Math.random().toString(36).slice(2, 8)), false);
          },
        },
        (k) => local(shippable[k]!),
        (o) => {
          report.byWorkers++;
          outcome(shippable[o.i]!, o.rec, o.reason);
        },
        (k) => progressed(shippable[k]!),
      );
      for (const n of written.sort()) this.adopt(openSegment(n, join(this.dir, n)));
    }
    await runRest();
    // What is left: everything without workers; with them, files a worker did not report.
    await flush();
    await this.compactIfNeeded();
    return report;
  }

  /** One file that the watcher saw change: read what it added, write it, return its summary (null: gone). */
  async refreshFile(adapter: AgentAdapter, root: string, path: string, now?: number): Promise<SessionSummary | null> {
    return this.writeOrRebuild(() => this.refreshFileOnce(adapter, root, path, now));
  }

  private async refreshFileOnce(adapter: AgentAdapter, root: string, path: string, now?: number): Promise<SessionSummary | null> {
    if (adapter.storeIndex) return this.refreshStoreOnce(adapter, root, path, now);
    const st = await stat(path).catch(() => null);
    const v = this.views.get(path);
    if (!st?.isFile()) {
      if (v) await this.write([deletionOf(v.rec)]);
      return null;
    }
    if (v && v.rec.fp.size === st.size && v.rec.fp.mtimeMs === st.mtimeMs) return this.summary(path, now);
    const f: SessionFile = { path, sessionId: v?.rec.sessionId ?? basename(path).replace(/\.jsonl$/, ''), size: st.size, mtimeMs: st.mtimeMs };
    const fallback = new Map<AgentAdapter, Promise<Map<string, SessionSummary>>>();
    await this.write([await indexFile(adapter, this.jobFor(adapter, f, now), (file) => this.fallbackSummary(fallback, adapter, root, file, now))]);
    this.left.delete(path);
    return this.summary(path, now);
  }

  /**
   * A store file changed (the watcher names the store or its WAL): each of its sessions whose size
   * or time moved is read again (one read of the store), the ones gone from it dropped. The summary
   * of `path` when it names one of them, else null (the list is asked again).
   */
  private async refreshStoreOnce(adapter: AgentAdapter, root: string, path: string, now?: number): Promise<SessionSummary | null> {
    const listed = await adapter.sessionFiles(root).catch(() => []);
    const seen = new Set(listed.map((f) => f.path));
    const stores: StoreCache = new Map();
    const out: FileInput[] = [];
    for (const f of listed) {
      const v = this.views.get(f.path);
      if (v && v.rec.fp.size === f.size && v.rec.fp.mtimeMs === f.mtimeMs) continue;
      const entry = (await this.storeEntries(stores, adapter, root, now)).get(f.path) ?? null;
      if (entry) out.push(storeSessionRecord(adapter, this.jobFor(adapter, f, now), entry));
    }
    for (const [p, v] of this.views) if (v.rec.agent === adapter.id && !seen.has(p) && adapter.storeRootOf?.(p, root) === root) out.push(deletionOf(v.rec));
    if (out.length > 0) await this.write(out);
    for (const r of out) this.left.delete(r.path);
    return seen.has(path) ? this.summary(path, now) : null;
  }

  /** A store's sessions for the index (`storeIndex`), read once per refresh. */
  private storeEntries(cache: StoreCache, adapter: AgentAdapter, root: string, now?: number): Promise<Map<string, StoreIndexEntry>> {
    const key = `${adapter.id}\0${root}`;
    let got = cache.get(key);
    if (!got) cache.set(key, (got = adapter.storeIndex!(root, now)));
    return got;
  }

  private jobFor(adapter: AgentAdapter, f: SessionFile, now?: number): IndexJob {
    const v = this.views.get(f.path);
    return {
      agent: adapter.id,
      file: f,
      prev: v ? { fp: v.rec.fp, state: this.state(v) } : null,
      prevPrompts: v ? { first: summaryOf(v)?.firstPrompt ?? null, last: summaryOf(v)?.lastPrompt ?? null } : null,
      now,
    };
  }

  /** The summary of an adapter without summarizeFile: its whole list, made once per refresh. */
  private async fallbackSummary(cache: Map<AgentAdapter, Promise<Map<string, SessionSummary>>>, adapter: AgentAdapter, root: string, f: SessionFile, now?: number): Promise<SessionSummary | null> {
    let all = cache.get(adapter);
    if (!all) cache.set(adapter, (all = adapter.summarize(root, { now }).then((l) => new Map(l.map((s) => [s.transcriptPath, s])), () => new Map())));
    return (await all).get(f.path) ?? null;
  }

  /** Segments apply in name order: a stamp after every segment we hold, even within one millisecond. */
  private nextStamp(): string {
    const last = this.segments.length ? Number(this.segments[this.segments.length - 1]!.name.slice(4, 19)) || 0 : 0;
    return String(Math.max(Date.now(), last + 1)).padStart(15, '0');
  }

  /** Writes `files` as a new segment (named `name`, else after every other), then compacts past MAX_SEGMENTS unless told not to. */
  private async write(files: SegmentInput['files'], name = `seg-${this.nextStamp()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}.idx`, compact = true): Promise<void> {
    // Written from its parts (no 24 MB copy into one buffer), and used as made (no second checksum pass).
    const enc = encodeSegmentParts({ files, base: this.segments.length === 0 });
    // Not written (a full or read-only cache): it serves this run from memory all the same.
    await this.persist(name, enc.parts);
    this.adopt(enc.segment(name));
    if (compact) await this.compactIfNeeded();
  }

  /** A segment just written (here or by a worker) joins the index, after every other. */
  private adopt(seg: Segment): void {
    this.segments.push(seg);
    this.apply(seg);
  }

  /**
   * Past MAX_SEGMENTS: while the segments after the base weigh under a quarter of it, they are merged
   * into one (work in proportion to what changed since the base: on a 4 GB history the base is
   * ~77 MB, and an agent writing makes a segment per append); else everything goes into a new base.
   */
  private async compactIfNeeded(): Promise<void> {
    if (this.segments.length <= MAX_SEGMENTS) return;
    const [base, ...deltas] = this.segments;
    const deltaBytes = deltas.reduce((a, d) => a + d.bytes, 0);
    if (base!.base && deltaBytes * 4 < base!.bytes) await this.mergeDeltas(base!, deltas);
    else await this.compactNow();
  }

  /**
   * The segments after the base as one: each file they touched as a whole record (its prompts from
   * every part, the base's included), or a deletion of the base's record. Whole records win over
   * anything older, so a merge cut short before the old segments are removed loses nothing.
   */
  private async mergeDeltas(base: Segment, deltas: Segment[]): Promise<void> {
    const inBase = new Map(base.files.map((r) => [r.path, r]));
    const touched = new Set(deltas.flatMap((d) => d.files.map((r) => r.path)));
    const files: SegmentInput['files'] = [];
    for (const path of touched) {
      const v = this.views.get(path);
      if (v) files.push(this.wholeRecord(v));
      else {
        const rec = inBase.get(path);
        if (rec) files.push(deletionOf(rec));
      }
    }
    const name = `seg-${this.nextStamp()}-${process.pid}-merged.idx`;
    const enc = encodeSegmentParts({ files, base: false });
    // Not written (a cache that cannot be): merged in memory, the files on disk stay as they are.
    const wrote = await this.persist(name, enc.parts);
    this.segments = [base];
    this.views.clear();
    this.apply(base);
    this.adopt(enc.segment(name));
    for (const s of deltas) {
      closeSegment(s);
      if (wrote) await unlink(join(this.dir, s.name)).catch(() => undefined);
    }
  }

  /** A file's record with every prompt of its parts, as one whole record. */
  private wholeRecord(v: View): SegmentInput['files'][number] {
    const st = this.state(v);
    return {
      ...v.rec,
      summary: summaryOf(v),
      mode: 'full',
      from: 0,
      meta: { prompts: v.parts.flatMap((p) => fileMeta(p.seg, p.file).prompts), recent: st.recent, leaf: st.leaf },
      packed: concatPacked(v.parts.map((p) => segmentPacked(p.seg, p.file))),
    };
  }

  /** Everything in one base segment; the older ones are then removed. */
  compact(): Promise<void> {
    return this.exclusive(() => this.compactNow());
  }

  private async compactNow(): Promise<void> {
    const files = [...this.views.values()].map((v) => this.wholeRecord(v));
    const old = this.segments;
    const name = `seg-${this.nextStamp()}-${process.pid}-base.idx`;
    const enc = encodeSegmentParts({ files, base: true });
    const wrote = await this.persist(name, enc.parts);
    this.segments = [];
    this.views.clear();
    const seg = enc.segment(name);
    this.segments.push(seg);
    this.apply(seg);
    for (const s of old) {
      closeSegment(s);
      if (wrote) await unlink(join(this.dir, s.name)).catch(() => undefined);
    }
  }

  /**
   * Runs `read` (a search, a listing); a segment block found damaged while reading (texts, ids and
   * summaries are checked when first read) drops the whole index with a one-line notice, and
   * `rebuild` (a refresh) builds it again before `read` runs once more.
   */
  async recovering<T>(read: () => T): Promise<T> {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof CorruptIndexError)) throw e;
      await this.exclusive(async () => {
        this.dropDamaged(e);
        await this.lastRefresh?.();
      });
      return read();
    }
  }

  /** A damaged index met while reading: said in one notice, then every segment is forgotten and deleted. */
  private dropDamaged(e: CorruptIndexError): void {
    const names = this.segments.map((s) => s.name);
    this.segments.forEach(closeSegment);
    this.segments = [];
    this.views.clear();
    // Those only in memory (never written) are not in the folder: removing them is a no-op.
    this.discard(e.message, names);
  }

  /** Every indexed session's list entry with its counts, newest first. */
  summaries(opts: { project?: string; now?: number } = {}): SessionSummary[] {
    const now = opts.now ?? Date.now();
    const out: SessionSummary[] = [];
    for (const v of this.views.values()) {
      const s = summaryOf(v);
      if (!s) continue;
      if (opts.project && s.cwd !== opts.project) continue;
      out.push({ ...s, sizeBytes: v.rec.fp.size, lastActivity: new Date(v.rec.fp.mtimeMs).toISOString(), live: now - v.rec.fp.mtimeMs < LIVE_WINDOW_MS, promptCount: v.rec.counts.total, livePromptCount: v.rec.counts.live });
    }
    // Ties (same mtime) by path: the order must not depend on which thread indexed a file.
    return out.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity) || a.transcriptPath.localeCompare(b.transcriptPath));
  }

  /**
   * Writes the session list beside the segments (list-snapshot.ts), for a warm `sessions` that then
   * need not open the index. Not when the index lives only in memory (its segments are not files),
   * nor when the last refresh left files out.
   */
  async saveListSnapshot(): Promise<void> {
    // Files left out (unreadable, not indexed yet) are listed but not held: it could never be fresh.
    if (this.readOnly || this.left.size > 0) return;
    const files = [...this.views.values()].map((v) => ({ path: v.rec.path, size: v.rec.fp.size, mtimeMs: v.rec.fp.mtimeMs }));
    const snap = encodeListSnapshot({ indexVersion: INDEX_VERSION, segments: this.segments.map((s) => s.name), files, sessions: this.summaries() });
    // Only a shortcut: one that cannot be written leaves the next list to open the index, unsaid.
    await writeCacheFileAtomic(join(this.dir, LIST_SNAPSHOT), [snap]).catch(() => undefined);
  }

  summary(path: string, now = Date.now()): SessionSummary | null {
    const v = this.views.get(path);
    const s = v ? summaryOf(v) : null;
    if (!v || !s) return null;
    return { ...s, sizeBytes: v.rec.fp.size, lastActivity: new Date(v.rec.fp.mtimeMs).toISOString(), live: now - v.rec.fp.mtimeMs < LIVE_WINDOW_MS, promptCount: v.rec.counts.total, livePromptCount: v.rec.counts.live };
  }

  search(query: string, opts: SearchOptions = {}): SearchResult {
    const { terms } = parseQuery(query);
    const result: SearchResult = { query, terms, sessions: [], totalHits: 0, moreSessions: 0, notSearched: [...this.left].map(([path, reason]) => ({ path, reason })), indexedFiles: this.views.size };
    if (terms.length === 0) return result;
    const candidates = [...this.views.values()].filter((v) => (!opts.agent || v.rec.agent === opts.agent) && (!opts.project || v.rec.cwd === opts.project));
    const newestFirst = (x: View, y: View) => y.rec.fp.mtimeMs - x.rec.fp.mtimeMs || x.rec.path.localeCompare(y.rec.path);
    const limit = opts.limit ?? Number.POSITIVE_INFINITY;
    // Past the limit, only whether a session matches (when its prompts need not be counted): every
    // hit is counted in the newest sessions, which a common word fills the list from, and only the
    // first in the others (a session of those that does make the list is counted again below).
    const firstOnly = opts.countPastLimit === false && limit !== Number.POSITIVE_INFINITY;
    const counted = firstOnly ? Math.min(candidates.length, limit * 2 + 8) : candidates.length;
    // Newest first: the list's order, and which sessions are counted in full.
    candidates.sort(newestFirst);
    const wanted = new Map<Segment, Uint8Array>();
    candidates.forEach((v, i) => mark(wanted, v, i < counted ? ALL_HITS : FIRST_HIT));
    // Every matching prompt, as numbers: a common word matches most of a history's prompts, and an
    // object per hit cost more (in garbage) than the scan. Hits stay in prompt order per segment.
    const words = terms.map((t) => Buffer.from(t, 'utf8'));
    const scan = (w: Map<Segment, Uint8Array>) => new Map([...w].map(([seg, marks]) => [seg, scanSegment(seg, marks, words)]));
    const found = scan(wanted);
    const countOf = (v: View, hits: Map<Segment, SegmentHits>) => v.parts.reduce((n, { seg, file }) => n + (hits.get(seg)?.perFile[file] ?? 0), 0);
    const sessions: { v: View; count: number; hits: Map<Segment, SegmentHits> }[] = [];
    for (const v of candidates) {
      const count = countOf(v, found);
      if (count > 0) sessions.push({ v, count, hits: found });
    }
    if (firstOnly) {
      // A listed session whose first hit only was looked for: all its prompts, in a scan of its records.
      const again = sessions.slice(0, limit).filter((e) => e.v.parts.some(({ seg, file }) => wanted.get(seg)![file] === FIRST_HIT));
      const more = new Map<Segment, Uint8Array>();
      for (const e of again) mark(more, e.v, ALL_HITS);
      const hits = scan(more);
      for (const e of again) {
        e.hits = hits;
        e.count = countOf(e.v, hits);
      }
    }
    const snippets = opts.snippets ?? 3;
    const described = opts.promptsPerSession ?? Number.POSITIVE_INFINITY;
    let budget = opts.snippetBudget ?? Number.POSITIVE_INFINITY;
    for (const { v, count, hits: found } of sessions) {
      if (result.sessions.length >= limit) {
        result.moreSessions++;
        if (!firstOnly) result.totalHits += count;
        continue;
      }
      result.totalHits += count;
      // The session's hits, newest first, as far as they are described.
      const hits: { seg: Segment; fi: number; p: number }[] = [];
      for (let k = v.parts.length - 1; k >= 0 && hits.length < described; k--) {
        const { seg, file } = v.parts[k]!;
        const [first, n] = seg.files[file]!.prompts;
        const all = found.get(seg)!.prompts;
        for (let i = lowerBound(all.list, all.length, first + n) - 1; i >= 0 && all.list[i]! >= first && hits.length < described; i--) hits.push({ seg, fi: file, p: all.list[i]! });
      }
      // Each part's prompt entries, read up to the last hit only.
      const parts = new Map<string, { seg: Segment; fi: number; wanted: number[]; got?: Map<number, FileMeta['prompts'][number]> }>();
      const local = hits.map(({ seg, fi, p }) => {
        const key = `${seg.name}:${fi}`;
        let part = parts.get(key);
        if (!part) parts.set(key, (part = { seg, fi, wanted: [] }));
        const k = p - seg.files[fi]!.prompts[0];
        part.wanted.push(k);
        return { seg, p, part, k };
      });
      for (const part of parts.values()) part.got = filePrompts(part.seg, part.fi, part.wanted);
      const prompts = local.map(({ seg, p, part, k }) => {
        const [uuid, offset, ts] = part.got!.get(k)!;
        return { seg, p, uuid, offset, ts };
      });
      result.sessions.push({
        sessionId: v.rec.sessionId,
        agent: v.rec.agent,
        transcriptPath: v.rec.path,
        title: summaryOf(v)?.title ?? null,
        cwd: v.rec.cwd,
        lastActivity: new Date(v.rec.fp.mtimeMs).toISOString(),
        count,
        prompts: prompts.map((h, i) => {
          const hl = i < snippets && budget-- > 0 ? highlight(segmentText(h.seg, h.p), terms) : null;
          return { promptUuid: h.uuid, offset: h.offset, timestamp: h.ts, snippet: hl?.snippet ?? null, highlights: hl?.highlights ?? [] };
        }),
      });
    }
    return result;
  }
}

/** A path that is a regular file itself (not a link, a folder, a FIFO, a device). */
function isRegular(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    // Gone since the listing (another process compacted): the retry after the open sees it.
    return true;
  }
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}


/** A segment's matching prompts (ascending, `length` of `list` used) and how many of each file record's matched. */
interface SegmentHits {
  prompts: { list: Uint32Array; length: number };
  perFile: Uint32Array;
}

/** How a record is scanned: every hit (ALL_HITS), its first hit only (FIRST_HIT); 0: not at all. */
const ALL_HITS = 1;
const FIRST_HIT = 2;

/** Marks every record of `v` in `marks` (one array per segment, made as needed). */
function mark(marks: Map<Segment, Uint8Array>, v: View, how: number): void {
  for (const { seg, file } of v.parts) {
    let w = marks.get(seg);
    if (!w) marks.set(seg, (w = new Uint8Array(seg.files.length)));
    w[file] = how;
  }
}

/**
 * The prompts of `seg` whose folded text holds every word, in the records `wanted` marks: the first
 * word is found by a scan of the whole folded text, the others inside each prompt it is found in.
 * A find in a record not wanted, or after the first hit of a FIRST_HIT record, skips to its end.
 */
function scanSegment(seg: Segment, wanted: Uint8Array, words: Buffer[]): SegmentHits {
  const perFile = new Uint32Array(seg.files.length);
  let list = new Uint32Array(1024);
  let length = 0;
  const [first, ...rest] = words as [Buffer, ...Buffer[]];
  const { folded, foldStarts: starts, promptFile, files } = seg;
  // The first word is looked for from its rarest byte on (memchr skips to it), its head then compared.
  const k = rareByteAt(first);
  const tail = k === 0 ? first : first.subarray(k);
  // Matches come in order: each prompt is looked for from the previous one on.
  let p = 0;
  for (let t = folded.indexOf(tail, k); t !== -1; ) {
    const at = t - k;
    if (k > 0 && !sameBytes(folded, at, first, k)) {
      t = folded.indexOf(tail, t + 1);
      continue;
    }
    p = promptFrom(starts, p, at);
    const fi = promptFile[p]!;
    const want = wanted[fi]!;
    const hit = want !== 0 && (rest.length === 0 || allIn(folded, starts[p]!, starts[p + 1]!, rest));
    if (hit) {
      if (length === list.length) {
        const grown = new Uint32Array(list.length * 2);
        grown.set(list);
        list = grown;
      }
      list[length++] = p;
      perFile[fi]!++;
    }
    if (want === 0 || (hit && want === FIRST_HIT)) {
      const [f0, n] = files[fi]!.prompts;
      p = f0 + n - 1;
    }
    // Always forward, whatever the table says.
    t = folded.indexOf(tail, Math.max(starts[p + 1]!, at + 1) + k);
  }
  return { prompts: { list, length }, perFile };
}

/** `buf[at, at + n)` holds `word`'s first `n` bytes (a word's head is a few bytes: no call into the buffer's compare). */
function sameBytes(buf: Buffer, at: number, word: Buffer, n: number): boolean {
  if (at < 0) return false;
  for (let j = 0; j < n; j++) if (buf[at + j] !== word[j]) return false;
  return true;
}

/** Every one of `words` is in `buf[a, b)`. */
function allIn(buf: Buffer, a: number, b: number, words: Buffer[]): boolean {
  const prompt = buf.subarray(a, b);
  for (const w of words) if (prompt.indexOf(w) === -1) return false;
  return true;
}

/**
 * Bytes of folded prompts from the most to the least common (lower case: the text is folded); any
 * byte not here (other punctuation, every byte of a non-ASCII letter) is rarer than all of them.
 * A substring search that starts at a rare byte skips ahead with memchr; one that starts at a
 * common one stops at every occurrence ("refactor": 23 ms over 44 MB, "factor": 6 ms).
 */
const BY_FREQUENCY = ' etaoinsrhldcumfpgwybv,.k-_/x0:1()2"=\'3j;q5z48>{}967<[]';
const RANK = new Uint8Array(256).fill(255);
for (let i = 0; i < BY_FREQUENCY.length; i++) RANK[BY_FREQUENCY.charCodeAt(i)] = i;

/** Where in `needle` its rarest byte is (the first of equals). */
export function rareByteAt(needle: Uint8Array): number {
  let best = 0;
  for (let i = 1; i < needle.length; i++) if (RANK[needle[i]!]! > RANK[needle[best]!]!) best = i;
  return best;
}

/**
 * The prompt whose folded text holds byte `at`, at or after prompt `from`: galloping from there (the
 * next match of a common word is most often in the very next prompt).
 */
function promptFrom(starts: Uint32Array, from: number, at: number): number {
  const last = starts.length - 2;
  let lo = from;
  let step = 1;
  while (lo + step <= last && starts[lo + step]! <= at) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(last, lo + step - 1);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The first index in `list[0..length)` (ascending) whose value is at least `x`. */
function lowerBound(list: Uint32Array, length: number, x: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
