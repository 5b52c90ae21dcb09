import { stat } from 'node:fs/promises';
import { readRange } from '../../engine/io/read-range.js';
import type { TaskRunner } from './task-runner.js';
import type { AgentAdapter, FollowedSession, FollowStep } from '../../engine/agents/adapter.js';
import { adapterOfFile, type AgentId } from '../../engine/agents/registry.js';
import { RewindError } from '../../engine/errors.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';

const GUARD = 256;
/** A parsed session takes about 0.2-0.6x its transcript in memory (bench parse): ~0.5 GiB at most for this. */
const DEFAULT_BUDGET_BYTES = 1024 * 1024 * 1024;

interface Live {
  session: FollowedSession;
  /** The bytes just before the session's end offset: if they change, the file was rewritten, not appended. */
  guard: Buffer;
}

/** What the last refresh of a session did: an incremental step touches only what the new lines reach. */
export type RefreshWork = FollowStep['work'];

/** The agent that follows a file (its adapter's `follow`). */
export type FollowerOf = (path: string) => Promise<AgentAdapter>;

/**
 * Open sessions of agents that follow their sessions (`AgentAdapter.follow`), kept parsed in memory.
 * What is generic lives here: the memory budget (least recently used dropped first), one refresh at
 * a time per file, the guard that tells an append from a rewrite (a truncated or rewritten file is
 * read again), and the events; reading the appended lines is the agent's.
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
    private readonly followerOf: FollowerOf = adapterOfFile,
  ) {}

  has(path: string): boolean {
    return this.live.has(path);
  }

  paths(): string[] {
    return [...this.live.keys()];
  }

  async get(path: string): Promise<{ session: FollowedSession; timeline: Timeline }> {
    let l = this.live.get(path);
    if (l) this.live.delete(path);
    else l = await this.load(path);
    // Map order is use order: the first entries are the least recently used.
    this.live.set(path, l);
    this.evict(path);
    return { session: l.session, timeline: l.session.timeline };
  }

  private evict(keep: string): void {
    let total = 0;
    for (const l of this.live.values()) total += l.session.endOffset;
    for (const [p, l] of this.live) {
      if (total <= this.budgetBytes) break;
      if (p === keep) continue;
      this.live.delete(p);
      total -= l.session.endOffset;
    }
  }

  forget(path: string): void {
    this.live.delete(path);
  }

  private async load(path: string): Promise<Live> {
    const st = await stat(path).catch(() => null);
    if (!st?.isFile()) throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
    if (st.size === 0) throw new RewindError('INVALID_TRANSCRIPT', `transcript is empty: ${path}`);
    const adapter = await this.followerOf(path);
    if (!adapter.follow) throw new RewindError('UNSUPPORTED', `${adapter.displayName} sessions are read whole, not followed`);
    // The first read of a session is the long part: it runs on the engine worker.
    const parsed = await this.runner.run('follow', { agent: adapter.id as AgentId, path });
    const end = parsed.endOffset;
    const guard = end > 0 ? await readRange(path, Math.max(0, end - GUARD), Math.min(GUARD, end)) : Buffer.alloc(0);
    return { session: await adapter.follow.revive(parsed, path), guard };
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
    const end = l.session.endOffset;
    const guardNow = end > 0 && st.size >= end ? await readRange(path, Math.max(0, end - GUARD), Math.min(GUARD, end)) : null;
    const appended = st.size >= end && (end === 0 || (guardNow !== null && guardNow.equals(l.guard)));
    if (!appended) {
      // Truncated or rewritten (our own in-place rewrite, or the agent's): read it again.
      const fresh = await this.load(path).catch(() => null);
      if (!fresh) {
        this.live.delete(path);
        return;
      }
      this.live.set(path, fresh);
      const timeline = fresh.session.timeline;
      this.emit({ type: 'timelineChanged', session: path, kind: 'reread', upserts: [], timeline, stats: timeline.stats });
      return;
    }
    if (st.size === end) return;
    const step = await l.session.extend();
    if (!step) return; // only a partial line so far
    const now = l.session.endOffset;
    l.guard = await readRange(path, Math.max(0, now - GUARD), Math.min(GUARD, now));
    this.work.set(path, step.work);
    const timeline = l.session.timeline;
    if (step.kind === 'reread') this.emit({ type: 'timelineChanged', session: path, kind: 'reread', upserts: [], timeline, stats: timeline.stats });
    else this.emit({ type: 'timelineChanged', session: path, kind: 'append', upserts: step.upserts, timeline: null, stats: timeline.stats });
  }
}
