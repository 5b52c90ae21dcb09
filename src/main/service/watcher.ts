import { watch, type FSWatcher } from 'chokidar';
import { join, sep } from 'node:path';

export interface WatchHandlers {
  /** A transcript was added or grew. */
  onTranscript(path: string): void;
  /** The set of sessions (or their order) may have changed. */
  onSessions(): void;
  /** Something in a project's store changed (a checkpoint was taken). */
  onStore(projectRoot: string): void;
  /** A Codex rollout was added or grew. */
  onRollout?(path: string): void;
}

/**
 * Watches the Claude config root's `projects/` (directories, two levels: project folders and the
 * transcripts in them) and the `.agent/rewind/checkpoints` of open projects. Bursts are debounced per
 * path; nothing is polled.
 */
export class Watcher {
  private root: FSWatcher | null = null;
  private codex: FSWatcher | null = null;
  private stores = new Map<string, FSWatcher>();
  private timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly handlers: WatchHandlers,
    private readonly debounceMs = 20,
    private readonly sessionsDebounceMs = 250,
  ) {}

  private debounce(key: string, ms: number, fn: () => void): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        fn();
      }, ms),
    );
  }

  async watchClaudeRoot(claudeRoot: string): Promise<void> {
    await this.root?.close();
    const projects = join(claudeRoot, 'projects');
    const w = watch(projects, {
      ignoreInitial: true,
      depth: 1,
      // Subagent folders and tool-results are not sessions.
      ignored: (p, stats) => !!stats?.isFile() && !p.endsWith('.jsonl'),
    });
    const onFile = (p: string) => {
      if (!p.endsWith('.jsonl')) return;
      this.debounce(p, this.debounceMs, () => this.handlers.onTranscript(p));
      this.debounce('sessions', this.sessionsDebounceMs, () => this.handlers.onSessions());
    };
    w.on('add', onFile).on('change', onFile).on('unlink', () => this.debounce('sessions', this.sessionsDebounceMs, () => this.handlers.onSessions()));
    w.on('addDir', () => this.debounce('sessions', this.sessionsDebounceMs, () => this.handlers.onSessions()));
    w.on('error', () => undefined);
    this.root = w;
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
  }

  /** Codex's `sessions/YYYY/MM/DD/`: the folder may appear later, so watch from the home. */
  async watchCodexHome(home: string): Promise<void> {
    await this.codex?.close();
    const sessions = join(home, 'sessions');
    const w = watch(home, {
      ignoreInitial: true,
      depth: 5,
      ignored: (p, stats) => !(p === home || p === sessions || p.startsWith(sessions + sep)) || (!!stats?.isFile() && !p.endsWith('.jsonl')),
    });
    w.on('add', (p) => this.onRollout(p)).on('change', (p) => this.onRollout(p));
    w.on('error', () => undefined);
    this.codex = w;
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
  }

  private onRollout(p: string): void {
    if (!p.endsWith('.jsonl')) return;
    this.debounce(p, this.debounceMs, () => this.handlers.onRollout?.(p));
  }

  async watchStore(projectRoot: string): Promise<void> {
    if (this.stores.has(projectRoot)) return;
    // The store may not exist yet (hooks installed a minute ago), and chokidar misses a watched
    // folder that appears later: watch from the project root, on the one path down to the store.
    const target = join(projectRoot, '.agent', 'rewind', 'checkpoints');
    const onPath = (p: string) => p === target || target.startsWith(p + sep) || p.startsWith(target + sep);
    const w = watch(projectRoot, { ignoreInitial: true, depth: 4, ignored: (p) => !onPath(p) });
    w.on('all', (_event, p) => {
      if (p === target || p.startsWith(target + sep)) this.debounce(`store:${projectRoot}`, 100, () => this.handlers.onStore(projectRoot));
    });
    w.on('error', () => undefined);
    // A checkpoint written while the watch was starting counts as already there (ignoreInitial):
    // look once more when it is ready.
    w.once('ready', () => this.debounce(`store:${projectRoot}`, 100, () => this.handlers.onStore(projectRoot)));
    this.stores.set(projectRoot, w);
  }

  async close(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.root?.close();
    await this.codex?.close();
    for (const w of this.stores.values()) await w.close();
    this.stores.clear();
  }
}
