import { mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { AgentAdapter, SessionFile } from '../agents/adapter.js';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import type { SessionSummary } from '../../shared/session-schema.js';
import { oneLine } from '../turn-text.js';
import { highlight, parseQuery } from './fold.js';
import { EMPTY_STATE, fingerprintOf, scanFile, type ScanState } from './scan-file.js';
import { CorruptIndexError, decodeSegment, encodeSegment, fileMeta, segmentFolded, segmentText, type FileMeta, type FileRecord, type Segment, type SegmentInput } from './segment.js';

/** Past this many delta segments, a refresh writes one base segment holding everything. */
const MAX_SEGMENTS = 12;
const LIVE_WINDOW_MS = 10_000;

interface Part {
  seg: Segment;
  file: number;
}

interface View {
  rec: FileRecord;
  parts: Part[];
}

export interface Source {
  adapter: AgentAdapter;
  root: string;
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

export interface SearchOptions {
  project?: string;
  agent?: string;
  limit?: number;
  /** Snippets per session (the rest come as ids only). */
  snippets?: number;
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
  /** Left out of the last refresh (budget, unreadable): searches report them. */
  private left = new Map<string, string>();

  private constructor(readonly dir: string) {}

  static async open(dir: string): Promise<SearchIndex> {
    const ix = new SearchIndex(dir);
    await ix.load();
    return ix;
  }

  get fileCount(): number {
    return this.views.size;
  }

  private async load(retried = false): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const names = (await readdir(this.dir)).filter((n) => n.endsWith('.idx')).sort();
    const segs: Segment[] = [];
    try {
      for (const n of names) segs.push(decodeSegment(n, await readFile(join(this.dir, n))));
    } catch (e) {
      // Another process compacted while we listed: its new base segment holds everything.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !retried) return this.load(true);
      if (!(e instanceof CorruptIndexError)) throw e;
      this.notices.push(`search index: ${e.message}; rebuilding it`);
      await Promise.all(names.map((n) => unlink(join(this.dir, n)).catch(() => undefined)));
      return;
    }
    let from = 0;
    for (let i = segs.length - 1; i >= 0; i--)
      if (segs[i]!.base) {
        from = i;
        break;
      }
    for (const s of segs.slice(0, from)) await unlink(join(this.dir, s.name)).catch(() => undefined);
    this.segments = segs.slice(from);
    for (const s of this.segments) this.apply(s);
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
   * after this long (the rest is `pending`, and searches say so); the CLI gives none.
   */
  async refresh(sources: Source[], opts: { budgetMs?: number; onProgress?: (p: RefreshProgress) => void; now?: number } = {}): Promise<RefreshReport> {
    const t0 = Date.now();
    const report: RefreshReport = { scanned: 0, appended: 0, reindexed: 0, deleted: 0, bytesRead: 0, skipped: [], pending: [], changed: [] };
    const seen = new Set<string>();
    const out: SegmentInput['files'] = [];
    const work: { adapter: AgentAdapter; root: string; f: SessionFile }[] = [];
    for (const { adapter, root } of sources) {
      const files = await adapter.sessionFiles(root).catch(() => [] as SessionFile[]);
      for (const f of files) {
        seen.add(f.path);
        const v = this.views.get(f.path);
        if (v && v.rec.fp.size === f.size && v.rec.fp.mtimeMs === f.mtimeMs) continue;
        work.push({ adapter, root, f });
      }
    }
    const bytesTotal = work.reduce((a, w) => a + w.f.size, 0);
    let bytesDone = 0;
    const fallback = new Map<AgentAdapter, Promise<Map<string, SessionSummary>>>();
    this.left.clear();
    // Several files at once: most of a file's cost is waiting for small reads.
    let next = 0;
    let filesDone = 0;
    const worker = async () => {
      while (next < work.length) {
        const i = next++;
        const { adapter, root, f } = work[i]!;
        if (opts.budgetMs !== undefined && Date.now() - t0 > opts.budgetMs) {
          report.pending.push({ path: f.path, size: f.size });
          this.left.set(f.path, 'not indexed yet (indexing continues)');
          continue;
        }
        try {
          const known = this.views.has(f.path);
          const rec = await this.updateFile(adapter, root, f, fallback, opts.now);
          out.push(rec);
          report.changed.push(f.path);
          report.bytesRead += rec.indexedTo - rec.from;
          if (rec.mode === 'append') report.appended++;
          else if (known) report.reindexed++;
          else report.scanned++;
        } catch (e) {
          const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'vanished while indexing' : `unreadable: ${(e as Error).message}`;
          report.skipped.push({ path: f.path, reason });
          this.left.set(f.path, reason);
        }
        bytesDone += f.size;
        opts.onProgress?.({ filesDone: ++filesDone, filesTotal: work.length, bytesDone, bytesTotal });
      }
    };
    await Promise.all(Array.from({ length: Math.min(8, work.length) }, worker));
    for (const [path, v] of this.views) {
      if (seen.has(path)) continue;
      out.push({ ...v.rec, mode: 'delete', from: v.rec.indexedTo, meta: { prompts: [], recent: {}, leaf: null }, texts: [], folded: [] });
      report.deleted++;
      report.changed.push(path);
    }
    if (out.length > 0) await this.write(out);
    return report;
  }

  /** One file that the watcher saw change: read what it added, write it, return its summary (null: gone). */
  async refreshFile(adapter: AgentAdapter, root: string, path: string, now?: number): Promise<SessionSummary | null> {
    const st = await stat(path).catch(() => null);
    const v = this.views.get(path);
    if (!st?.isFile()) {
      if (v) await this.write([{ ...v.rec, mode: 'delete', from: v.rec.indexedTo, meta: { prompts: [], recent: {}, leaf: null }, texts: [], folded: [] }]);
      return null;
    }
    if (v && v.rec.fp.size === st.size && v.rec.fp.mtimeMs === st.mtimeMs) return this.summary(path, now);
    const f: SessionFile = { path, sessionId: v?.rec.sessionId ?? basename(path).replace(/\.jsonl$/, ''), size: st.size, mtimeMs: st.mtimeMs };
    await this.write([await this.updateFile(adapter, root, f, new Map(), now)]);
    this.left.delete(path);
    return this.summary(path, now);
  }

  private async updateFile(adapter: AgentAdapter, root: string, f: SessionFile, fallback: Map<AgentAdapter, Promise<Map<string, SessionSummary>>>, now?: number): Promise<SegmentInput['files'][number]> {
    const v = this.views.get(f.path);
    const { fp, headAgain } = fingerprintOf(f.path, v?.rec.fp.headLen);
    let prev: ScanState = EMPTY_STATE;
    let mode: 'full' | 'append' = 'full';
    if (v && fp.ino === v.rec.fp.ino && headAgain === v.rec.fp.head && fp.size > v.rec.fp.size && fp.size >= v.rec.indexedTo) {
      prev = this.state(v);
      mode = 'append';
    }
    let scan = await scanFile(f.path, adapter.promptLines, prev);
    if (scan.needsFullScan) {
      mode = 'full';
      scan = await scanFile(f.path, adapter.promptLines, EMPTY_STATE);
    }
    const file: SessionFile = { ...f, size: fp.size, mtimeMs: fp.mtimeMs };
    let summary = adapter.summarizeFile ? await adapter.summarizeFile(file, now).catch(() => null) : null;
    if (!adapter.summarizeFile) {
      let all = fallback.get(adapter);
      if (!all) fallback.set(adapter, (all = adapter.summarize(root, { now }).then((l) => new Map(l.map((s) => [s.transcriptPath, s])), () => new Map())));
      summary = (await all).get(f.path) ?? null;
    }
    if (summary) {
      // First and last prompt from the prompts themselves (the file's ends may not hold them).
      const first = mode === 'append' ? (v?.rec.summary?.firstPrompt ?? null) : null;
      const a = scan.prompts[0];
      const z = scan.prompts[scan.prompts.length - 1];
      summary = {
        ...summary,
        firstPrompt: first ?? (a ? oneLine(a.text, 200) : summary.firstPrompt),
        lastPrompt: z ? oneLine(z.text, 200) : mode === 'append' ? (v?.rec.summary?.lastPrompt ?? summary.lastPrompt) : summary.lastPrompt,
      };
      if (summary.title === '(no prompt yet)' && summary.firstPrompt) summary.title = summary.firstPrompt;
    }
    const meta: FileMeta = { prompts: scan.prompts.map((p) => [p.uuid, p.offset, p.timestamp]), recent: scan.state.recent, leaf: scan.state.leaf };
    return {
      mode,
      path: f.path,
      agent: adapter.id,
      sessionId: summary?.id ?? f.sessionId,
      fp,
      from: prev.indexedTo,
      indexedTo: scan.state.indexedTo,
      lineCount: scan.state.lineCount,
      counts: scan.state.counts,
      summary,
      meta,
      texts: scan.prompts.map((p) => p.text),
      folded: scan.prompts.map((p) => p.folded),
    };
  }

  private async write(files: SegmentInput['files']): Promise<void> {
    const name = `seg-${Date.now().toString().padStart(15, '0')}-${process.pid}-${Math.random().toString(36).slice(2, 8)}.idx`;
    const buf = encodeSegment({ files, base: this.segments.length === 0 });
    await writeCacheFileAtomic(join(this.dir, name), buf);
    const seg = decodeSegment(name, buf);
    this.segments.push(seg);
    this.apply(seg);
    if (this.segments.length > MAX_SEGMENTS) await this.compact();
  }

  /** Everything in one base segment; the older ones are then removed. */
  async compact(): Promise<void> {
    const files: SegmentInput['files'] = [];
    for (const v of this.views.values()) {
      const texts: string[] = [];
      const folded: string[] = [];
      const prompts: FileMeta['prompts'] = [];
      for (const { seg, file } of v.parts) {
        const [first, count] = seg.files[file]!.prompts;
        const m = fileMeta(seg, file);
        for (let p = first; p < first + count; p++) {
          texts.push(segmentText(seg, p));
          folded.push(segmentFolded(seg, p));
        }
        prompts.push(...m.prompts);
      }
      const st = this.state(v);
      files.push({ ...v.rec, mode: 'full', from: 0, meta: { prompts, recent: st.recent, leaf: st.leaf }, texts, folded });
    }
    const old = this.segments;
    const name = `seg-${Date.now().toString().padStart(15, '0')}-${process.pid}-base.idx`;
    const buf = encodeSegment({ files, base: true });
    await writeCacheFileAtomic(join(this.dir, name), buf);
    this.segments = [];
    this.views.clear();
    const seg = decodeSegment(name, buf);
    this.segments.push(seg);
    this.apply(seg);
    for (const s of old) await unlink(join(this.dir, s.name)).catch(() => undefined);
  }

  /** Every indexed session's list entry with its counts, newest first. */
  summaries(opts: { project?: string; now?: number } = {}): SessionSummary[] {
    const now = opts.now ?? Date.now();
    const out: SessionSummary[] = [];
    for (const v of this.views.values()) {
      const s = v.rec.summary;
      if (!s) continue;
      if (opts.project && s.cwd !== opts.project) continue;
      out.push({ ...s, sizeBytes: v.rec.fp.size, lastActivity: new Date(v.rec.fp.mtimeMs).toISOString(), live: now - v.rec.fp.mtimeMs < LIVE_WINDOW_MS, promptCount: v.rec.counts.total, livePromptCount: v.rec.counts.live });
    }
    return out.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  }

  summary(path: string, now = Date.now()): SessionSummary | null {
    const v = this.views.get(path);
    const s = v?.rec.summary;
    if (!v || !s) return null;
    return { ...s, sizeBytes: v.rec.fp.size, lastActivity: new Date(v.rec.fp.mtimeMs).toISOString(), live: now - v.rec.fp.mtimeMs < LIVE_WINDOW_MS, promptCount: v.rec.counts.total, livePromptCount: v.rec.counts.live };
  }

  search(query: string, opts: SearchOptions = {}): SearchResult {
    const { terms } = parseQuery(query);
    const result: SearchResult = { query, terms, sessions: [], totalHits: 0, moreSessions: 0, notSearched: [...this.left].map(([path, reason]) => ({ path, reason })), indexedFiles: this.views.size };
    if (terms.length === 0) return result;
    const wanted = new Map<Segment, Uint8Array>();
    for (const v of this.views.values()) {
      if (opts.agent && v.rec.agent !== opts.agent) continue;
      if (opts.project && v.rec.summary?.cwd !== opts.project) continue;
      for (const { seg, file } of v.parts) {
        let w = wanted.get(seg);
        if (!w) wanted.set(seg, (w = new Uint8Array(seg.files.length)));
        w[file] = 1;
      }
    }
    const bySession = new Map<string, { v: View; hits: { seg: Segment; p: number }[] }>();
    const first = Buffer.from(terms[0]!, 'utf8');
    for (const [seg, w] of wanted) {
      let at = seg.folded.indexOf(first);
      while (at !== -1) {
        const p = promptAt(seg.foldStarts, at);
        const rec = seg.files[seg.promptFile[p]!]!;
        if (w[seg.promptFile[p]!] && (terms.length === 1 || terms.slice(1).every((t) => segmentFolded(seg, p).includes(t)))) {
          let e = bySession.get(rec.path);
          if (!e) bySession.set(rec.path, (e = { v: this.views.get(rec.path)!, hits: [] }));
          e.hits.push({ seg, p });
        }
        at = seg.folded.indexOf(first, seg.foldStarts[p + 1]!);
      }
    }
    const sessions = [...bySession.values()].sort((a, b) => b.v.rec.fp.mtimeMs - a.v.rec.fp.mtimeMs);
    const limit = opts.limit ?? Number.POSITIVE_INFINITY;
    const snippets = opts.snippets ?? 3;
    for (const { v, hits } of sessions) {
      result.totalHits += hits.length;
      if (result.sessions.length >= limit) {
        result.moreSessions++;
        continue;
      }
      const metas = new Map<string, FileMeta>();
      const prompts = hits
        .map(({ seg, p }) => {
          const fi = seg.promptFile[p]!;
          const key = `${seg.name}:${fi}`;
          let m = metas.get(key);
          if (!m) metas.set(key, (m = fileMeta(seg, fi)));
          const [uuid, offset, ts] = m.prompts[p - seg.files[fi]!.prompts[0]]!;
          return { seg, p, uuid, offset, ts };
        })
        .reverse();
      result.sessions.push({
        sessionId: v.rec.sessionId,
        agent: v.rec.agent,
        transcriptPath: v.rec.path,
        title: v.rec.summary?.title ?? null,
        cwd: v.rec.summary?.cwd ?? null,
        lastActivity: new Date(v.rec.fp.mtimeMs).toISOString(),
        count: hits.length,
        prompts: prompts.map((h, i) => {
          const hl = i < snippets ? highlight(segmentText(h.seg, h.p), terms) : null;
          return { promptUuid: h.uuid, offset: h.offset, timestamp: h.ts, snippet: hl?.snippet ?? null, highlights: hl?.highlights ?? [] };
        }),
      });
    }
    return result;
  }
}

/** The index of the user's sessions: `<cache dir>/index/`. */
export function indexDir(cacheDir: string): string {
  return join(cacheDir, 'index');
}

/** The prompt whose folded text holds byte `at`. */
function promptAt(starts: Uint32Array, at: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

