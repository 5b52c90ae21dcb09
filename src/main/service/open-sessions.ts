import { resolve } from 'node:path';
import type { AgentAdapter } from '../../engine/agents/adapter.js';
import { adapterOfFile, findSession } from '../../engine/agents/registry.js';
import { RewindError } from '../../engine/errors.js';
import { insideAny } from '../../engine/guard.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';
import { LiveSessions } from './live-sessions.js';
import type { TaskRunner } from './task-runner.js';
import { WholeSessions } from './whole-sessions.js';

type Roots = { adapter: AgentAdapter; root: string }[];

/**
 * The sessions the window has open, whichever agent wrote them: followed as they grow (agents with
 * `follow`) or read whole again when they change; and which agent wrote each file (asked once).
 */
export class OpenSessions {
  readonly live: LiveSessions;
  readonly whole = new WholeSessions();
  private readonly agentOf = new Map<string, AgentAdapter>();

  constructor(
    emit: (e: RewindEvent) => void,
    runner: TaskRunner,
    private readonly roots: () => Roots,
  ) {
    this.live = new LiveSessions(emit, runner, undefined, (p) => this.adapterOf(p));
  }

  /** Which agent wrote a session file (asked once per path). */
  async adapterOf(path: string): Promise<AgentAdapter> {
    let a = this.agentOf.get(path);
    if (!a) this.agentOf.set(path, (a = await adapterOfFile(path)));
    return a;
  }

  /** A session by path, id or id prefix, refusing a file outside the agents' folders. */
  async find(session: string): Promise<{ adapter: AgentAdapter; path: string }> {
    const roots = this.roots();
    const found = await findSession(session, roots);
    if (!found) throw new RewindError('NOT_FOUND', `no session "${session}"`);
    // A door's caller reads sessions, not any file of the agents' shape: a path must be in a root.
    if (!(await insideAny(roots.map((r) => r.root), resolve(found.path)))) throw new RewindError('UNSAFE_PATH', `refusing a session file outside the agents' folders: ${found.path}`);
    const known = this.agentOf.get(found.path);
    if (known) return { adapter: known, path: found.path };
    this.agentOf.set(found.path, found.adapter);
    return found;
  }

  /** An open session's timeline: followed (kept current with each append) or read whole (`fresh`: read again). */
  async timeline(adapter: AgentAdapter, path: string, fresh = false): Promise<Timeline> {
    return adapter.follow ? (await this.live.get(path)).timeline : this.whole.timeline(adapter, path, fresh);
  }

  /** A session rewritten (in place, undone, redone): read again when next asked for. */
  forget(path: string): void {
    this.live.forget(path);
    this.whole.forget(path);
  }

  /** Brings the followed sessions up to date with their files; whole ones are read again when next asked for. */
  async catchUp(): Promise<void> {
    await Promise.all(this.live.paths().map((p) => this.live.refresh(p)));
    this.whole.clear();
  }
}
