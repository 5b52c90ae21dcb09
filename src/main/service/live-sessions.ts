import { stat } from 'node:fs/promises';
import { readLines } from '../../engine/io/read-lines.js';
import { readRange } from '../../engine/io/read-range.js';
import type { TaskRunner } from './task-runner.js';
import { readSubagentFiles, type LineCountCache, type SubagentCache } from '../../engine/agents/claude/parse-transcript.js';
import type { SessionModel } from '../../engine/agents/claude/model.js';
import { SessionBuilder, sessionIdFromPath } from '../../engine/agents/claude/session-builder.js';
import { cursorOf, extendTimeline, toTimeline, type TimelineCursor } from '../../engine/agents/claude/timeline.js';
import { RewindError } from '../../engine/errors.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';

const GUARD = 256;
/** A parsed session takes about 0.2-0.6x its transcript in memory (bench parse): ~0.5 GiB at most for this. */
const DEFAULT_BUDGET_BYTES = 1024 * 1024 * 1024;

interface Live {
  path: string;
  builder: SessionBuilder;
  /** End of the last complete line read: where the next read starts. */
  endOffset: number;
  lineCount: number;
  /** The bytes just before endOffset: if they change, the file was rewritten, not appended. */
  guard: Buffer;
  model: SessionModel;
  timeline: Timeline;
  cursor: TimelineCursor;
  subagentCounts: LineCountCache;
  subagentsKnown: SubagentCache;
}

/** What the last refresh of a session did: an incremental step touches only what the new lines reach. */
export interface RefreshWork {
  kind: 'extend' | 'rebuild';
  /** New lines read. */
  lines: number;
  /** Messages looked at: the new ones (extend) or every message of the session (rebuild). */
  messages: number;
  /** Prompt documents made: the new ones and those whose turn grew (extend), or all (rebuild). */
  prompts: number;
}

/**
 * Parsed sessions kept in memory. A change to a transcript is read from the last known offset
 * only (a partial last line waits for its end); a truncated or rewritten file is read again. When
 * the new lines only extend the tree, the model and the timeline are extended from them alone and
 * the event carries the new prompts and the one whose turn grew; anything structural (a new
 * branch, a compaction, a slash command) builds the whole timeline again and sends it whole.
 */
export class LiveSessions {
  private readonly live = new Map<string, Live>();
  private readonly pending = new Map<string, Promise<void>>();
  /** The last refresh's work per session (what the tests and the bench count). */
  readonly work = new Map<string, RefreshWork>();

  constructor(
    private readonly emit: (e: RewindEvent) => void,
    private readonly runner: TaskRunner,
    /** Open sessions are dropped least recently used first once their transcripts add up to more than this. */
    private readonly budgetBytes = DEFAULT_BUDGET_BYTES,
  ) {}

  has(path: string): boolean {
    return this.live.has(path);
  }

  paths(): string[] {
    return [...this.live.keys()];
  }

  async get(path: string): Promise<{ model: SessionModel; timeline: Timeline }> {
    let l = this.live.get(path);
    if (l) this.live.delete(path);
    else l = await this.load(path);
    // Map order is use order: the first entries are the least recently used.
    this.live.set(path, l);
    this.evict(path);
    return { model: l.model, timeline: l.timeline };
  }

  private evict(keep: string): void {
    let total = 0;
    for (const l of this.live.values()) total += l.endOffset;
    for (const [p, l] of this.live) {
      if (total <= this.budgetBytes) break;
      if (p === keep) continue;
      this.live.delete(p);
      total -= l.endOffset;
    }
  }

  forget(path: string): void {
    this.live.delete(path);
  }

  private async load(path: string): Promise<Live> {
    const st = await stat(path).catch(() => null);
    if (!st?.isFile()) throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
    if (st.size === 0) throw new RewindError('INVALID_TRANSCRIPT', `transcript is empty: ${path}`);
    // The first read of a session is the long part: it runs on the engine worker. The builder
    // comes back as plain data and gets its class back, so appends continue from where it stopped.
    const parsed = await this.runner.run('parse', { path });
    const builder = Object.setPrototypeOf(parsed.builder, SessionBuilder.prototype) as SessionBuilder;
    const res = { endOffset: parsed.endOffset, lineCount: parsed.lineCount, size: parsed.size, partial: parsed.partial ? true : null };
    const guard = res.endOffset > 0 ? await readRange(path, Math.max(0, res.endOffset - GUARD), Math.min(GUARD, res.endOffset)) : Buffer.alloc(0);
    const live: Live = { path, builder, endOffset: res.endOffset, lineCount: res.lineCount, guard, model: null as unknown as SessionModel, timeline: null as unknown as Timeline, cursor: { leafPrompt: null }, subagentCounts: new Map(), subagentsKnown: { meta: new Map(), sibling: new Map() } };
    await this.rebuild(live, res.size, res.partial !== null);
    if (builder.order.length === 0 && builder.issues.length > 0) throw new RewindError('INVALID_TRANSCRIPT', `not a Claude Code transcript: ${path}`);
    return live;
  }

  private async subagentFiles(l: Live) {
    return readSubagentFiles(l.path, l.builder.sessionId ?? sessionIdFromPath(l.path), l.subagentCounts, l.subagentsKnown);
  }

  private async rebuild(l: Live, size: number, partial: boolean): Promise<void> {
    l.model = l.builder.build({ transcriptPath: l.path, size, endOffset: l.endOffset, hasPartialLine: partial, subagentFiles: await this.subagentFiles(l) });
    l.timeline = toTimeline(l.model);
    l.cursor = cursorOf(l.model);
  }

  /** Called when the watcher sees the file change; serialised per file. */
  refresh(path: string): Promise<void> {
    const prev = this.pending.get(path) ?? Promise.resolve();
    const next = prev.then(() => this.doRefresh(path)).catch(() => undefined);
    this.pending.set(path, next);
    return next;
  }

  private async doRefresh(path: string): Promise<void> {
    const l = this.live.get(path);
    if (!l) return;
    const st = await stat(path).catch(() => null);
    if (!st) {
      this.live.delete(path);
      return;
    }
    const guardNow = l.endOffset > 0 && st.size >= l.endOffset ? await readRange(path, Math.max(0, l.endOffset - GUARD), Math.min(GUARD, l.endOffset)) : null;
    const appended = st.size >= l.endOffset && (l.endOffset === 0 || (guardNow !== null && guardNow.equals(l.guard)));
    if (!appended) {
      // Truncated or rewritten (our own in-place rewrite, or the agent's): read it again.
      const fresh = await this.load(path).catch(() => null);
      if (!fresh) {
        this.live.delete(path);
        return;
      }
      this.live.set(path, fresh);
      this.emit({ type: 'timelineChanged', session: path, kind: 'reread', upserts: [], timeline: fresh.timeline, stats: fresh.timeline.stats });
      return;
    }
    if (st.size === l.endOffset) return;
    const mark = l.builder.mark();
    const res = await readLines(path, (line) => l.builder.addLine(line), { fromOffset: l.endOffset, fromIndex: l.lineCount });
    if (res.endOffset === l.endOffset) return; // only a partial line so far
    const lines = res.lineCount - l.lineCount;
    l.endOffset = res.endOffset;
    l.lineCount = res.lineCount;
    l.guard = await readRange(path, Math.max(0, l.endOffset - GUARD), Math.min(GUARD, l.endOffset));
    const meta = { transcriptPath: path, size: res.size, endOffset: l.endOffset, hasPartialLine: res.partial !== null, subagentFiles: await this.subagentFiles(l) };
    const step = l.builder.extend(l.model, mark, meta);
    if (step) {
      const next = extendTimeline(l.timeline, l.cursor, step);
      l.model = step.model;
      l.timeline = next.timeline;
      l.cursor = next.cursor;
      this.work.set(path, { kind: 'extend', lines, messages: step.messages + step.walked.length, prompts: next.upserts.length });
      // New slash commands and compactions are drawn from the whole document.
      if (next.structural) this.emit({ type: 'timelineChanged', session: path, kind: 'reread', upserts: [], timeline: l.timeline, stats: l.timeline.stats });
      else this.emit({ type: 'timelineChanged', session: path, kind: 'append', upserts: next.upserts, timeline: null, stats: l.timeline.stats });
      return;
    }
    await this.rebuild(l, res.size, res.partial !== null);
    this.work.set(path, { kind: 'rebuild', lines, messages: l.model.order.length, prompts: l.timeline.prompts.length });
    this.emit({ type: 'timelineChanged', session: path, kind: 'reread', upserts: [], timeline: l.timeline, stats: l.timeline.stats });
  }
}
