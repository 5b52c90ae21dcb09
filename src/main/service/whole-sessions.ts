import type { AgentAdapter } from '../../engine/agents/adapter.js';
import type { Timeline } from '../../shared/session-schema.js';
import { storeFileOf } from '../../engine/io/store-ref.js';

/**
 * Open sessions of agents the service does not follow incrementally: read whole by their adapter
 * (rollouts are small next to Claude's transcripts) and read again when they change.
 */
export class WholeSessions {
  private readonly timelines = new Map<string, { adapter: AgentAdapter; timeline: Timeline }>();

  async timeline(adapter: AgentAdapter, path: string, fresh = false): Promise<Timeline> {
    let t = fresh ? undefined : this.timelines.get(path)?.timeline;
    if (!t) this.timelines.set(path, { adapter, timeline: (t = await adapter.timeline(path)) });
    return t;
  }

  has(path: string): boolean {
    return this.timelines.has(path);
  }

  /**
   * The open sessions a changed file stands for: the file itself, or for a database (and its
   * `-wal`) the open sessions kept inside it (`<db>#<id>`, io/store-ref.ts).
   */
  sessionsOf(changed: string): string[] {
    const db = changed.endsWith('-wal') ? changed.slice(0, -4) : changed;
    const inside = [...this.timelines.keys()].filter((p) => storeFileOf(p) === db);
    return inside.length ? inside : [changed];
  }

  forget(path: string): void {
    this.timelines.delete(path);
  }

  /** Forgets every session (each is read again when next asked for). */
  clear(): void {
    this.timelines.clear();
  }

  /** A session file changed: its fresh timeline when it is open (`read`: already read by the caller), else null. */
  async changed(path: string, read?: Timeline): Promise<Timeline | null> {
    const open = this.timelines.get(path);
    if (!open) return null;
    if (read) {
      open.timeline = read;
      return read;
    }
    try {
      return await this.timeline(open.adapter, path, true);
    } catch {
      this.timelines.delete(path);
      return null;
    }
  }
}
