import { stat } from 'node:fs/promises';
import { readLines } from '../../engine/io/read-lines.js';
import { readRange } from '../../engine/io/read-range.js';
import type { TaskRunner } from './task-runner.js';
import { readSubagentFiles, type LineCountCache } from '../../engine/agents/claude/parse-transcript.js';
import type { SessionModel } from '../../engine/agents/claude/model.js';
import { SessionBuilder, sessionIdFromPath } from '../../engine/agents/claude/session-builder.js';
import { toTimeline } from '../../engine/agents/claude/timeline.js';
import { RewindError } from '../../engine/errors.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';

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
  promptJson: Map<string, string>;
  subagentCounts: LineCountCache;
}

/**
 * Parsed sessions kept in memory. A change to a transcript is read from the last known offset
 * only (a partial last line waits for its end); a truncated or rewritten file is read again. Each
 * update emits the prompts that are new or changed.
 */
export class LiveSessions {
  private readonly live = new Map<string, Live>();
  private readonly pending = new Map<string, Promise<void>>();

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
    const live: Live = { path, builder, endOffset: res.endOffset, lineCount: res.lineCount, guard, model: null as unknown as SessionModel, timeline: null as unknown as Timeline, promptJson: new Map(), subagentCounts: new Map() };
    await this.rebuild(live, res.size, res.partial !== null);
    if (builder.order.length === 0 && builder.issues.length > 0) throw new RewindError('INVALID_TRANSCRIPT', `not a Claude Code transcript: ${path}`);
    return live;
  }

  private async rebuild(l: Live, size: number, partial: boolean): Promise<TimelinePrompt[]> {
    const subagentFiles = await readSubagentFiles(l.path, l.builder.sessionId ?? sessionIdFromPath(l.path), l.subagentCounts);
    l.model = l.builder.build({ transcriptPath: l.path, size, endOffset: l.endOffset, hasPartialLine: partial, subagentFiles });
    l.timeline = toTimeline(l.model);
    const upserts: TimelinePrompt[] = [];
    for (const p of l.timeline.prompts) {
      const json = JSON.stringify(p);
      if (l.promptJson.get(p.uuid) !== json) {
        upserts.push(p);
        l.promptJson.set(p.uuid, json);
      }
    }
    return upserts;
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
    const res = await readLines(path, (line) => l.builder.addLine(line), { fromOffset: l.endOffset, fromIndex: l.lineCount });
    if (res.endOffset === l.endOffset) return; // only a partial line so far
    l.endOffset = res.endOffset;
    l.lineCount = res.lineCount;
    l.guard = await readRange(path, Math.max(0, l.endOffset - GUARD), Math.min(GUARD, l.endOffset));
    const branchesBefore = l.timeline.branches.length;
    const upserts = await this.rebuild(l, res.size, res.partial !== null);
    const structural = l.timeline.branches.length !== branchesBefore;
    this.emit({
      type: 'timelineChanged',
      session: path,
      kind: structural ? 'reread' : 'append',
      upserts: structural ? [] : upserts,
      timeline: structural ? l.timeline : null,
      stats: l.timeline.stats,
    });
  }
}
