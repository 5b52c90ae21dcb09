import { listCodexSessions, listRolloutFiles } from '../../engine/agents/codex/discover.js';
import { parseRollout } from '../../engine/agents/codex/rollout.js';
import { codexTurn } from '../../engine/agents/codex/turn.js';
import { RewindError } from '../../engine/errors.js';
import { agentOfFile } from '../../engine/session-files.js';
import type { Agent, SessionSummary, Timeline } from '../../shared/session-schema.js';

/**
 * The service's side of Codex CLI sessions: shown, never rewound. Open timelines are read whole
 * (rollouts are linear and small next to Claude's) and read again when they change.
 */
export class CodexSessions {
  private readonly agents = new Map<string, Agent>();
  private readonly timelines = new Map<string, Timeline>();

  /** `home` is null while there is nothing to read (the demo is shown). */
  constructor(private readonly home: () => string | null) {}

  async hasAny(): Promise<boolean> {
    const home = this.home();
    return !!home && (await listRolloutFiles(home)).length > 0;
  }

  list(project?: string): Promise<SessionSummary[]> {
    const home = this.home();
    return home ? listCodexSessions({ home, project }) : Promise.resolve([]);
  }

  /** Where Codex sessions are read from now (null while the demo is shown). */
  get homeDir(): string | null {
    return this.home();
  }

  async search(query: string) {
    const home = this.home();
    if (!home) return { matches: [], truncated: false };
    const { searchRollouts } = await import('../../engine/agents/codex/search.js');
    return searchRollouts(await listRolloutFiles(home), query);
  }

  async isCodex(path: string): Promise<boolean> {
    let a = this.agents.get(path);
    if (!a) this.agents.set(path, (a = await agentOfFile(path)));
    return a === 'codex';
  }

  /** Rewinding and restoring work on Claude Code sessions only: a clear refusal for the others. */
  async refuse(path: string): Promise<void> {
    if (await this.isCodex(path)) throw new RewindError('UNSUPPORTED', 'this is a Codex CLI session: Rewind shows it, but goes back in Claude Code sessions only, for now');
  }

  async timeline(path: string, fresh = false): Promise<Timeline> {
    let t = fresh ? undefined : this.timelines.get(path);
    if (!t) this.timelines.set(path, (t = await parseRollout(path)));
    return t;
  }

  async turn(path: string, promptUuid: string) {
    return codexTurn(await this.timeline(path), promptUuid);
  }

  /** A rollout changed: its fresh timeline when it is open, else null. */
  async changed(path: string): Promise<Timeline | null> {
    if (!this.timelines.has(path)) return null;
    try {
      return await this.timeline(path, true);
    } catch {
      this.timelines.delete(path);
      return null;
    }
  }
}
