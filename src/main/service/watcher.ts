import { watch, type FSWatcher } from 'chokidar';
import { existsSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

/**
 * Watches `target` and `levels` of folders below it, whether or not it exists yet: chokidar misses
 * a watched folder that appears later, so the watch starts at the nearest existing ancestor and
 * follows only the one path down to the target. `skip` leaves out entries inside the target.
 */
export function watchDown(target: string, levels: number, skip?: (path: string, isFile: boolean) => boolean): { w: FSWatcher; inside(path: string): boolean } {
  let base = target;
  while (!existsSync(base) && dirname(base) !== base) base = dirname(base);
  const under = (p: string, parent: string) => p.startsWith(parent.endsWith(sep) ? parent : parent + sep);
  const inside = (p: string) => p === target || under(p, target);
  const along = (p: string) => inside(p) || under(target, p);
  const above = base === target ? 0 : relative(base, target).split(sep).length;
  const w = watch(base, {
    ignoreInitial: true,
    depth: above + levels,
    ignored: (p, stats) => !along(p) || (p !== target && inside(p) && !!skip?.(p, !!stats?.isFile())),
  });
  w.on('error', () => undefined);
  return { w, inside };
}

const ready = (w: FSWatcher) => new Promise<void>((resolve) => w.once('ready', () => resolve()));

/**
 * chokidar drops a `change` that comes within 50 ms of the previous one for the same path, and
 * sends nothing after: the last lines of a burst (an agent writes a turn's lines milliseconds
 * apart) would wait for the next write. So a file is looked at once more after that window.
 */
const CHOKIDAR_CHANGE_THROTTLE_MS = 50;
const sizeAndTime = (st: Stats | null | undefined) => (st ? `${st.size}:${st.mtimeMs}:${st.ino}` : null);

export interface WatchHandlers {
  /** A session file was added or grew. */
  onTranscript(path: string): void;
  /** The set of sessions (or their order) may have changed. */
  onSessions(): void;
  /** Something in a project's store changed (a checkpoint was taken). */
  onStore(projectRoot: string): void;
  /** The queue of a first checkpoint read in the background changed (default: as onStore). */
  onBackground?(projectRoot: string): void;
}

/** Where one agent keeps its sessions (an adapter's `watch`). */
export interface SessionWatch {
  dirs: string[];
  depth: number;
  isSessionFile(path: string): boolean;
}

/**
 * Watches each agent's session folders (as its adapter describes them, whether or not they exist
 * yet) and the `.agent/rewind/checkpoints` of open projects. Bursts are debounced per path;
 * nothing is polled.
 */
export class Watcher {
  private agents = new Map<string, FSWatcher[]>();
  private stores = new Map<string, FSWatcher>();
  private backgrounds = new Map<string, FSWatcher>();
  private timers = new Map<string, NodeJS.Timeout>();
  /** What each session file was (size, mtime, inode) at its last event. */
  private lastSeen = new Map<string, string | null>();

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

  /** One agent's sessions, under `key` (its id): a second call for the same key replaces the first. */
  async watchSessions(key: string, spec: SessionWatch): Promise<void> {
    for (const w of this.agents.get(key) ?? []) await w.close();
    const sessions = () => this.debounce('sessions', this.sessionsDebounceMs, () => this.handlers.onSessions());
    const ws: FSWatcher[] = [];
    for (const dir of spec.dirs) {
      // Folders down to the session files; other files inside (tool results, ...) are not sessions.
      const { w, inside } = watchDown(dir, spec.depth, (p, isFile) => isFile && !spec.isSessionFile(p));
      // A new session changes the list; a grown one only its own row (onTranscript).
      const onFile = (p: string, added: boolean, st?: Stats) => {
        if (!inside(p) || !spec.isSessionFile(p)) return;
        this.lastSeen.set(p, sizeAndTime(st));
        this.debounce(p, this.debounceMs, () => this.handlers.onTranscript(p));
        this.debounce(`again:${p}`, CHOKIDAR_CHANGE_THROTTLE_MS + this.debounceMs, () => void this.lookAgain(p));
        if (added) sessions();
      };
      w.on('add', (p, st) => onFile(p, true, st))
        .on('change', (p, st) => onFile(p, false, st))
        .on('unlink', (p) => {
          this.lastSeen.delete(p);
          if (inside(p)) sessions();
        });
      w.on('addDir', (p) => inside(p) && sessions());
      ws.push(w);
    }
    this.agents.set(key, ws);
    await Promise.all(ws.map(ready));
  }

  /** After chokidar's window: a change it swallowed shows as a file that is not what its last event saw. */
  private async lookAgain(p: string): Promise<void> {
    if (!this.lastSeen.has(p)) return;
    const now = sizeAndTime(await stat(p).catch(() => null));
    if (now === null || now === this.lastSeen.get(p)) return;
    this.lastSeen.set(p, now);
    this.debounce(p, 0, () => this.handlers.onTranscript(p));
  }

  async watchStore(projectRoot: string): Promise<void> {
    if (this.stores.has(projectRoot)) return;
    // The store may not exist yet (hooks installed a minute ago).
    const { w, inside } = watchDown(join(projectRoot, '.agent', 'rewind', 'checkpoints'), 0);
    const changed = () => this.debounce(`store:${projectRoot}`, 100, () => this.handlers.onStore(projectRoot));
    w.on('all', (_event, p) => inside(p) && changed());
    // A checkpoint written while the watch was starting counts as already there (ignoreInitial):
    // look once more when it is ready.
    w.once('ready', changed);
    this.stores.set(projectRoot, w);
    // A project's first checkpoint is read in the background: its queue (background.json) says which prompts wait for it.
    const bg = watchDown(join(projectRoot, '.agent', 'rewind', 'background.json'), 0);
    bg.w.on('all', (_event, p) => bg.inside(p) && this.debounce(`background:${projectRoot}`, 100, () => (this.handlers.onBackground ?? this.handlers.onStore)(projectRoot)));
    this.backgrounds.set(projectRoot, bg.w);
  }

  async close(): Promise<void> {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.lastSeen.clear();
    for (const ws of this.agents.values()) for (const w of ws) await w.close();
    this.agents.clear();
    for (const w of this.stores.values()) await w.close();
    this.stores.clear();
    for (const w of this.backgrounds.values()) await w.close();
    this.backgrounds.clear();
  }
}
