import type { FSWatcher } from 'chokidar';
import type { AgentAdapter } from '../../engine/agents/adapter.js';
import { watchDown } from './watcher.js';

type Roots = { adapter: AgentAdapter; root: string }[];

/** How often open sessions are looked at again: a process-only agent (Gemini, Droid) leaves no file to watch, and a crash leaves its marker. */
export const OPEN_RECHECK_MS = 5000;

/**
 * Tells the window when an agent opens or closes a session (or goes busy or idle) without a re-read:
 * watches each agent's marker folders (`openMarkerDirs`) and looks at every agent's open sessions
 * again every few seconds; `changed` is called only when what is open differs from the last look.
 */
export class OpenWatch {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private last: string | null = null;
  private looking: Promise<void> | null = null;

  constructor(
    private readonly roots: () => Roots,
    private readonly changed: () => void,
    private readonly recheckMs = OPEN_RECHECK_MS,
  ) {}

  async start(): Promise<void> {
    await this.close();
    this.last = await this.state();
    for (const { adapter, root } of this.roots()) {
      for (const dir of adapter.openMarkerDirs?.(root) ?? []) {
        const { w, inside } = watchDown(dir, 0);
        w.on('all', (_e, p) => inside(p) && this.soon());
        this.watchers.push(w);
      }
    }
    await Promise.all(this.watchers.map((w) => new Promise<void>((r) => w.once('ready', () => r()))));
    this.timer = setInterval(() => void this.look(), this.recheckMs);
    this.timer.unref?.();
  }

  /** A marker file came, went or was rewritten: look once the burst is over. */
  private soon(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.look();
    }, 100);
  }

  /** What is open now, as one comparable string (agent, pid, session, folder, status). */
  private async state(): Promise<string> {
    const { openMarkers } = await import('../../engine/agents/open-session.js');
    const found = await openMarkers(this.roots()).catch(() => []);
    return found
      .flatMap(({ adapter, markers }) => markers.map((m) => `${adapter.id}:${m.pid}:${m.sessionId ?? ''}:${m.cwd ?? ''}:${m.status}`))
      .sort()
      .join('\n');
  }

  /** One look at a time; a change since the last one is reported. */
  look(): Promise<void> {
    this.looking ??= this.state()
      .then((now) => {
        if (now === this.last) return;
        this.last = now;
        this.changed();
      })
      .finally(() => (this.looking = null));
    return this.looking;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.timer = this.debounce = null;
    await this.looking?.catch(() => undefined);
    for (const w of this.watchers) await w.close();
    this.watchers = [];
  }
}
