import { RemoteHub } from '../remote/remote-hub.js';
import { loadPrices } from '../../engine/insight/load-prices.js';
import { runCompare, runExport, type InsightSession } from '../../engine/insight/run.js';
import { withCost } from '../../shared/insight/cost.js';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { materializeDemo } from '../../engine/demo.js';
import { describeError, RewindError } from '../../engine/errors.js';
import { hookCommand, hooksStatus, settingsPath, type Scope } from '../../engine/hooks/settings.js';
import { PromptCheckpoints } from './prompt-checkpoints.js';
import { CONTRACT, type ParsedRequestOf, type ResponseOf, type Result, type RewindEvent } from '../../shared/contract.js';
import type { OperationName } from '../../shared/operations.js';
import type { Timeline } from '../../shared/session-schema.js';
import type { LiveSessions } from './live-sessions.js';
import { InlineRunner, WorkerRunner, type TaskRunner } from './task-runner.js';
import { Watcher } from './watcher.js';
import { listCheckpoints } from '../../engine/store/manifest.js';
import type { AgentAdapter } from '../../engine/agents/adapter.js';
import { AGENT_PRIMARY, adapterFor, agentInfo, rootsFor, type AgentId, type AgentRoots } from '../../engine/agents/registry.js';
import { defaultCacheDir } from '../../engine/io/cache-dir.js';
import { indexDir } from '../../engine/search-index/search-index.js';
import { OpenSessions } from './open-sessions.js';
import { OpenWatch } from './open-watch.js';
import { projectOf, RewindFlow } from './rewind-flow.js';
import { CheckpointMarks } from './checkpoint-marks.js';
import { ExportJobs } from './export-jobs.js';
import { defaultPrefsFile, hideHooksNotice, readPrefs, renameSession } from '../../engine/config/ui-prefs.js';

export interface ServiceOptions {
  claudeRoot?: string;
  /** Folder holding `demo/` (bundled sessions). */
  resourcesDir?: string;
  /** Use the bundled demo instead of the user's data (also when no Claude data exists). */
  demo?: boolean;
  /** How the installed hooks run this app's CLI: absolute paths. */
  cli?: { node: string; script: string };
  version?: string;
  watch?: boolean;
  /** Built engine worker script: long work runs there, off the main thread. */
  workerScript?: string;
  workerExecArgv?: string[];
  /** Rewind's own prefs file (session names, dismissed notices); default under the user's config dir. */
  prefsFile?: string;
  /** Other agents' roots (the registry's ids); default from `env`. null leaves an agent out. */
  roots?: AgentRoots;
  env?: NodeJS.ProcessEnv;
  /** Where the search and metadata index lives; default the platform's cache folder. */
  cacheDir?: string;
  /**
   * A window's start: the first list is answered from the persisted index alone, and the watcher
   * (and the index's refresh) start only after it (or after WATCH_LATER_MS without one).
   */
  deferWatch?: boolean;
  /** Connect to the remote hosts the user added (`remote add`): the app and `serve` do; `serve --stdio` and tests do not. */
  remotes?: boolean;
  /** How often open sessions are looked at again (default OPEN_RECHECK_MS). */
  openRecheckMs?: number;
}

/** How long a list or a search may spend indexing before it answers with what it has (and says what is left). */
const LIST_BUDGET_MS = 600;
const SEARCH_BUDGET_MS = 1500;
/** Snippets the filter gets in all: every match of a usual query, a bounded read for a common word. */
const WINDOW_SNIPPETS = 1000;
/** Matches the filter lists at most (a two-letter query can hit every prompt of a big history); the count stays exact. */
const WINDOW_MATCHES = 5000;
/** With `deferWatch`, the watcher starts this long after start when no list was asked for first. */
const WATCH_LATER_MS = 1000;

type Handler<K extends OperationName> = (req: ParsedRequestOf<K>) => Promise<ResponseOf<K>>;

/**
 * Everything the UI can ask for, in plain Node (no Electron). The IPC, HTTP and socket doors all
 * call `handle`, which validates the request against the contract first; errors come back as
 * `{code, message}`.
 */
export class RewindService {
  claudeRoot: string;
  demo = false;
  private readonly listeners = new Set<(e: RewindEvent) => void>();
  private readonly open: OpenSessions;
  private readonly flow: RewindFlow;
  /** The followed sessions (the bench counts their work). */
  get live(): LiveSessions {
    return this.open.live;
  }
  private watcher: Watcher | null = null;
  private openWatch: OpenWatch | null = null;
  private opCounter = 0;
  private readonly demoDirs: string[] = [];
  readonly runner: TaskRunner;
  private readonly prefsFile: string;
  private readonly marks = new CheckpointMarks({ paths: () => this.open.live.paths(), timeline: async (p) => (await this.open.live.get(p)).timeline }, (e) => this.emit(e));
  private remotes: RemoteHub | null = null;
  private readonly exports = new ExportJobs((e) => this.emit(e));

  constructor(private readonly opts: ServiceOptions = {}) {
    this.claudeRoot = adapterFor(AGENT_PRIMARY).root(opts.env ?? process.env, opts.claudeRoot);
    this.prefsFile = opts.prefsFile ?? defaultPrefsFile(opts.env ?? process.env);
    this.runner = opts.workerScript ? new WorkerRunner(opts.workerScript, opts.workerExecArgv) : new InlineRunner();
    // A marker that cannot be read must not cost the update itself (nor, unhandled, the process).
    this.open = new OpenSessions(
      (e) =>
        void this.marks.decorateEvent(e).then(
          (d) => this.emit(d),
          () => this.emit(e),
        ),
      this.runner,
      () => this.roots(),
    );
    this.flow = new RewindFlow({ runner: this.runner, open: this.open, emit: (e) => this.emit(e), roots: () => this.roots(), opId: () => `op-${++this.opCounter}` });
  }


  private indexRoots(): { dir: string; roots: { agent: AgentId; root: string }[] } {
    return { dir: indexDir(this.opts.cacheDir ?? defaultCacheDir(this.env)), roots: this.roots().map(({ adapter, root }) => ({ agent: adapter.id as AgentId, root })) };
  }

  private indexing: Promise<void> | null = null;
  /** The index has every session and the watcher keeps it current: searches need no refresh first. */
  private indexCurrent = false;

  /** Finishes a first build in the background (on the worker), then has the window list again
   * (`onlyIfChanged`: only when a summary changed). */
  private indexLater(onlyIfChanged = false): void {
    this.indexing ??= this.runner
      .run('indexSummaries', { ...this.indexRoots() })
      .then(
        (r) => {
          this.indexCurrent = !!this.watcher && r.pending === 0;
          if (!onlyIfChanged || r.changed > 0) this.emit({ type: 'sessionsChanged' });
        },
        () => undefined,
      )
      .finally(() => (this.indexing = null));
  }

  /** Index updates for changed files still under way: a search or a list waits for them, so a
   * prompt the watcher has seen is never missing from an answer. */
  private readonly indexUpdates = new Set<Promise<void>>();

  private async indexSettled(): Promise<void> {
    if (this.indexUpdates.size) await Promise.allSettled([...this.indexUpdates]);
  }

  /** A session file grew or changed: its one summary, from the index (appended bytes only), as one event. */
  private sessionChanged(path: string): void {
    const update = (async () => {
      const adapter = await this.open.adapterOf(path);
      const root = this.roots().find((r) => r.adapter === adapter)?.root;
      if (!root) return;
      const summary = await this.runner.run('indexFile', { dir: this.indexRoots().dir, agent: adapter.id as AgentId, root, path });
      if (summary) this.emit({ type: 'sessionUpdated', session: summary });
      else this.emit({ type: 'sessionsChanged' });
    })().catch(() => undefined);
    this.indexUpdates.add(update);
    void update.finally(() => this.indexUpdates.delete(update));
  }

  /** Picks the data source (demo when asked or when there is no Claude data) and starts watching
   * (with `deferWatch`, after the first list). */
  async start(): Promise<void> {
    const hasData = !!(await stat(join(this.claudeRoot, 'projects')).catch(() => null)) || (await this.anySessions());
    if ((this.opts.demo || (!hasData && !this.opts.claudeRoot)) && this.opts.resourcesDir) await this.useDemo();
    // The worker loads the engine while the doors start: the first list does not wait for it.
    this.runner.warm?.();
    if (this.opts.remotes) {
      this.remotes = new RemoteHub({ env: this.env, localVersion: this.opts.version ?? 'dev', emit: (e) => this.emit(e) });
      await this.remotes.start();
    }
    if (this.opts.watch === false) return;
    if (!this.opts.deferWatch) return this.startWatching();
    this.firstList = true;
    this.watching = new Promise((resolve) => (this.watchStarted = resolve));
    void this.runner.run('indexOpen', { dir: this.indexRoots().dir }).catch(() => undefined);
    this.watchTimer = setTimeout(() => this.watchAfterFirstList(), WATCH_LATER_MS);
    this.watchTimer.unref?.();
  }

  /** The next list answers from the persisted index alone (set by a deferred start). */
  private firstList = false;
  private watchTimer: NodeJS.Timeout | null = null;
  /** Resolves when the watcher of a deferred start is up (tests and the bench wait for it). */
  watching: Promise<void> = Promise.resolve();
  private watchStarted: () => void = () => undefined;

  /**
   * Starts the deferred watcher, then catches up with what changed before it was up: the index
   * (one refresh, a re-list only if a summary changed) and the open sessions.
   */
  private watchAfterFirstList(): void {
    if (!this.watchTimer) return;
    clearTimeout(this.watchTimer);
    this.watchTimer = null;
    this.firstList = false;
    void this.startWatching()
      .then(() => {
        this.indexLater(true);
        for (const p of this.open.live.paths()) void this.open.live.refresh(p);
      })
      .catch(() => undefined)
      .finally(() => this.watchStarted());
  }

  /** A deferred watch that has not started will not (closing, or another root that is watched now). */
  private cancelDeferredWatch(): void {
    if (this.watchTimer) {
      clearTimeout(this.watchTimer);
      this.watchStarted();
    }
    this.watchTimer = null;
    this.firstList = false;
  }

  private async useDemo(): Promise<void> {
    const d = await materializeDemo(this.opts.resourcesDir!);
    this.demoDirs.push(d.base);
    this.claudeRoot = d.claudeRoot;
    this.demo = true;
  }

  private async startWatching(): Promise<void> {
    await this.watcher?.close();
    this.indexCurrent = false;
    this.watcher = new Watcher({
      onTranscript: (changed) => {
        // A database an agent keeps its sessions in stands for the open sessions inside it.
        for (const p of this.open.whole.sessionsOf(changed)) {
          this.sessionChanged(p);
          if (this.open.live.has(p)) void this.open.live.refresh(p);
          else void this.open.adapterOf(p).then((a) => (a.follow ? undefined : this.otherChanged(a, p)));
        }
      },
      onSessions: () => {
        this.indexCurrent = false;
        this.emit({ type: 'sessionsChanged' });
      },
      onStore: (root) => {
        this.emit({ type: 'sessionsChanged' });
        this.marks.remark(root).catch(() => undefined);
      },
      // Each tool of a prompt queued behind the first checkpoint writes the queue: only the marks can change.
      onBackground: (root) => this.marks.remark(root).catch(() => undefined),
    });
    for (const { adapter, root } of this.roots()) await this.watcher.watchSessions(adapter.id, adapter.watch(root)).catch(() => undefined);
    // An agent opening or quitting a session (or going busy or idle) re-marks the list.
    await this.openWatch?.close();
    this.openWatch = new OpenWatch(() => this.roots(), () => this.emit({ type: 'sessionsChanged' }), this.opts.openRecheckMs);
    await this.openWatch.start().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.cancelDeferredWatch();
    await this.watching;
    await this.watcher?.close();
    await this.openWatch?.close();
    await this.runner.close();
    this.remotes?.close();
    // The demo's copies are scratch: each start makes a fresh one.
    await Promise.all(this.demoDirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  }

  onEvent(listener: (e: RewindEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(e: RewindEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // one bad listener does not stop the others
      }
    }
  }

  /**
   * Without a watcher (the MCP server runs none): the sessions held in memory are brought up to date
   * with their files before a request (a stat per open session; only what changed is read).
   */
  async catchUp(): Promise<void> {
    if (this.watcher) return;
    await this.open.catchUp();
  }

  /** An operation on this machine only (the remote hub gathers the list and search with it). */
  private async runHere(op: OperationName, payload: unknown): Promise<Result<unknown>> {
    try {
      return { ok: true, value: await (this.handlers[op] as Handler<OperationName>)(payload as never) };
    } catch (e) {
      return { ok: false, error: describeError(e) };
    }
  }

  private hub(): RemoteHub {
    if (!this.remotes) throw new RewindError('UNSUPPORTED', 'remote hosts are not reached from this process (a host serving over ssh does not chain to others)');
    return this.remotes;
  }

  /** Validates an untrusted request and runs it. */
  async handle(name: string, payload: unknown): Promise<Result<unknown>> {
    if (!Object.hasOwn(CONTRACT, name)) return { ok: false, error: { code: 'USAGE', message: `unknown operation "${name}"` } };
    const op = name as OperationName;
    const parsed = CONTRACT[op].request.safeParse(payload ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
      return { ok: false, error: { code: 'INVALID_REQUEST', message: `invalid ${op} request${where}: ${issue?.message ?? 'bad payload'}` } };
    }
    try {
      const routed = await this.remotes?.route(op, parsed.data, (o, p) => this.runHere(o, p));
      if (routed) return routed;
      const handler = this.handlers[op] as Handler<OperationName>;
      return { ok: true, value: await handler(parsed.data as never) };
    } catch (e) {
      return { ok: false, error: describeError(e) };
    }
  }

  /** Each agent's root now: the first agent's is the settable one (and the demo's); the demo shows only it. */
  private roots(): { adapter: AgentAdapter; root: string }[] {
    const primary = AGENT_PRIMARY;
    const overrides: AgentRoots = { ...this.opts.roots, [primary]: this.claudeRoot };
    if (this.demo) for (const a of rootsFor(this.env)) if (a.adapter.id !== primary) overrides[a.adapter.id] = null;
    return rootsFor(this.env, overrides);
  }

  private get env(): NodeJS.ProcessEnv {
    return this.opts.env ?? process.env;
  }

  private async anySessions(): Promise<boolean> {
    for (const { adapter, root } of this.roots()) if ((await adapter.sessionFiles(root).catch(() => [])).length > 0) return true;
    return false;
  }


  /** Rewind's checkpoints at each new prompt of agents without hooks for it. */
  private readonly promptCheckpoints = new PromptCheckpoints(async (projectRoot, transcript) => {
    await this.runner.run('checkpoint', { projectRoot, trigger: 'prompt', label: null, transcript });
  });

  private readonly otherPending = new Map<string, Promise<void>>();

  /**
   * A session of an agent read whole changed: one read of its timeline serves both the prompt
   * checkpoint (agents without hooks) and the open window, which gets one event after it, with
   * the new prompt's marker already in it. Serialised per file.
   */
  private otherChanged(adapter: AgentAdapter, path: string): Promise<void> {
    const next = (this.otherPending.get(path) ?? Promise.resolve())
      .then(async () => {
        const open = this.open.whole.has(path);
        if (!open && adapter.checkpointHooks) return;
        const timeline = await adapter.timeline(path).catch(() => null);
        if (!timeline) {
          this.open.whole.forget(path);
          return;
        }
        if (!adapter.checkpointHooks) await this.promptCheckpoints.changed(adapter, path, Date.now(), timeline);
        if (open) await this.wholeChanged(path, timeline);
      })
      .catch(() => undefined);
    this.otherPending.set(path, next);
    void next.finally(() => this.otherPending.get(path) === next && this.otherPending.delete(path));
    return next;
  }


  /** An open session read whole changed (or got a marker): the window gets it again. */
  private async wholeChanged(path: string, read?: Timeline): Promise<void> {
    const fresh = await this.open.whole.changed(path, read);
    if (!fresh) return;
    const timeline = await this.marks.decorate(fresh).catch(() => fresh);
    this.emit({ type: 'timelineChanged', session: path, kind: 'reread', upserts: [], timeline, stats: timeline.stats });
  }




  /**
   * A restore or undo killed half-way (the app crashed, the machine lost power) is rolled back or
   * finished as soon as its project is opened, not at the next restore: the user sees the project
   * as it was, and is told. One readdir when there is nothing to do.
   */
  private async recoverAt(projectRoot: string | null): Promise<void> {
    if (!projectRoot) return;
    const { recoverPending } = await import('../../engine/store/restore-intent.js');
    const lines = await recoverPending(projectRoot).catch((e: unknown) => [`could not finish an interrupted restore: ${describeError(e).message}`]);
    for (const line of lines) this.emit({ type: 'operationFinished', id: `op-${++this.opCounter}`, operation: 'recover', ok: !line.startsWith('could not'), summary: `${line[0]!.toUpperCase()}${line.slice(1)}.` });
  }












  /** A session with its costs, as compare and export read it. */
  private async insightSession(ref: string): Promise<InsightSession> {
    const { adapter, path: file } = await this.open.find(ref);
    const timeline = await this.open.timeline(adapter, file, true);
    const { book } = await loadPrices();
    return { file, timeline: withCost(timeline, book), book };
  }

  private readonly handlers: { [K in OperationName]: Handler<K> } = {
    listSessions: async (req) => {
      const exists = !!(await stat(join(this.claudeRoot, 'projects')).catch(() => null));
      // From the metadata index on the worker: what is not indexed within the budget comes from its
      // head (count unknown) and indexing goes on; a sessionsChanged follows when it is done.
      await this.indexSettled();
      // A deferred start's first list: the persisted index alone (when it has anything); the
      // watcher starts once this answer is out, and then the index catches up.
      const stored = this.firstList;
      const r = await this.runner.run('indexSummaries', { ...this.indexRoots(), project: req.project, budgetMs: LIST_BUDGET_MS, stored });
      if (r.pending > 0) this.indexLater();
      else this.indexCurrent = !!this.watcher && !r.stored;
      const { withJournals } = await import('../../engine/journal/session-annotations.js');
      const entries = await readdir(this.claudeRoot).catch(() => null);
      const rootState = entries === null ? 'missing' : entries.length === 0 ? 'empty' : 'present';
      const { markOpen } = await import('../../engine/agents/open-session.js');
      // Which of them a running agent has open (each agent's markers, checked for liveness).
      const sessions = await markOpen(await withJournals(r.sessions), this.roots());
      // After this answer is written (the door writes it before any timer runs).
      if (stored) setTimeout(() => this.watchAfterFirstList(), 0);
      return { root: this.claudeRoot, exists, rootState, agents: agentInfo(), sessions };
    },
    getTimeline: async (req) => {
      const { adapter, path } = await this.open.find(req.session);
      const { openStateOf } = await import('../../engine/agents/open-session.js');
      const agentRoot = this.roots().find((r) => r.adapter.id === adapter.id)?.root ?? null;
      const opened = (cwd: string | null) => openStateOf(adapter, path, agentRoot, { cwd }).catch(() => null);
      if (!adapter.follow) {
        const t = await this.marks.decorate(await this.open.whole.timeline(adapter, path, true));
        if (t.session.cwd) this.watcher?.watchStore(t.session.cwd).catch(() => undefined);
        await this.recoverAt(await projectOf(t.session.cwd));
        return { ...t, session: { ...t.session, readOnly: await this.flow.readOnly(adapter, path), open: await opened(t.session.cwd) } };
      }
      const { timeline } = await this.open.live.get(path);
      const root = await projectOf(timeline.session.cwd);
      if (root) this.watcher?.watchStore(root).catch(() => undefined);
      await this.recoverAt(root);
      const t = await this.marks.decorate(timeline);
      return { ...t, session: { ...t.session, open: await opened(t.session.cwd) } };
    },
    getTurn: async (req) => {
      const { adapter, path } = await this.open.find(req.session);
      if (adapter.follow) return (await this.open.live.get(path)).session.turn(req.promptUuid);
      return adapter.turn(path, req.promptUuid);
    },
    searchPrompts: async (req) => {
      await this.indexSettled();
      const { result, pending } = await this.runner.run('indexSearch', { ...this.indexRoots(), query: req.query, opts: { limit: req.limit, agent: req.agent, project: req.project, snippets: WINDOW_SNIPPETS, snippetBudget: WINDOW_SNIPPETS }, budgetMs: SEARCH_BUDGET_MS, refresh: !this.indexCurrent });
      if (pending > 0) this.indexLater();
      else this.indexCurrent = !!this.watcher;
      // Every matching prompt up to a bound (the filter walks them all); past the snippet budget without a snippet.
      const matches = result.sessions.flatMap((s) => s.prompts.map((p) => ({ transcriptPath: s.transcriptPath, sessionId: s.sessionId, promptUuid: p.promptUuid, snippet: p.snippet, highlights: p.highlights }))).slice(0, WINDOW_MATCHES);
      return {
        matches,
        sessions: result.sessions.map((s) => ({ transcriptPath: s.transcriptPath, sessionId: s.sessionId, count: s.count, promptUuids: s.prompts.map((p) => p.promptUuid) })),
        totalHits: result.totalHits,
        notSearched: result.notSearched,
        truncated: result.notSearched.length > 0 || result.moreSessions > 0,
      };
    },
    previewRewind: (req) => this.flow.previewRewind(req),
    applyRewind: (req) => this.flow.applyRewind(req),
    listCheckpoints: async (req) => ({ projectRoot: req.project, checkpoints: await listCheckpoints(req.project) }),
    takeCheckpoint: async (req) => this.runner.run('checkpoint', { projectRoot: req.project, trigger: 'manual', label: req.label ?? null }),
    previewRestore: (req) => this.flow.previewRestore(req),
    applyRestore: (req) => this.flow.applyRestore(req),
    undo: (req) => this.flow.undo(req),
    revertPreview: (req) => this.flow.revertPreview(req),
    revert: (req) => this.flow.revert(req),
    redo: (req) => this.flow.redo(req),
    history: async (req) => ({ projectRoot: req.project, entries: await this.runner.run('history', { projectRoot: req.project, agentRoots: this.roots().map((x) => ({ id: x.adapter.id, root: x.root })) }) }),
    hooksStatus: async (req) => {
      const scopes = await Promise.all((['user', 'project', 'local'] as Scope[]).map((s) => hooksStatus(settingsPath(s, req.project, this.claudeRoot), s)));
      return { projectRoot: req.project, projectExists: await isFolder(req.project), scopes, command: this.hookCommandLine(), agents: await this.agentsHooks(req.project) };
    },
    installHooks: async (req) => {
      // A project's hooks live in its own folder: one that is not on this machine (another machine's
      // session, a folder since removed) is never made for them.
      if (req.scope !== 'user' && !(await isFolder(req.project))) throw new RewindError('NOT_FOUND', `the project folder ${req.project} is not on this machine: no hooks can go there`);
      // No agent: the first agent's (plain `rewind-app hook`), through the same safe, surgical edit as every agent's.
      const { installAgentHooks } = await import('../../engine/hooks/agents-hooks.js');
      const { BARE_HOOK_AGENT } = await import('../../engine/agents/hooks-index.js');
      const r = await installAgentHooks(req.agent ?? BARE_HOOK_AGENT, { projectRoot: req.project, env: this.env, claudeDir: this.claudeRoot, scope: req.scope ?? null, command: this.hookCommandLine(), dryRun: req.dryRun });
      return { file: r.file, changed: r.changed, lines: r.lines, nextStep: r.nextStep, before: r.before, after: r.after, backup: r.backup };
    },
    uninstallHooks: async (req) => {
      const { uninstallAgentHooks } = await import('../../engine/hooks/agents-hooks.js');
      const { BARE_HOOK_AGENT } = await import('../../engine/agents/hooks-index.js');
      const r = await uninstallAgentHooks(req.agent ?? BARE_HOOK_AGENT, { projectRoot: req.project, env: this.env, claudeDir: this.claudeRoot, scope: req.scope ?? null, dryRun: req.dryRun });
      return { file: r.file, changed: r.changed, lines: r.lines, nextStep: null, before: r.before, after: r.after, backup: r.backup };
    },
    getPrefs: async () => readPrefs(this.prefsFile),
    listRemotes: async () => ({ hosts: this.remotes?.list() ?? [] }),
    addRemote: async (req) => ({ hosts: await this.hub().add(req.target, req.name) }),
    removeRemote: async (req) => ({ hosts: await this.hub().remove(req.name) }),
    reconnectRemote: async (req) => ({ hosts: this.hub().reconnect(req.name) }),
    renameSession: async (req) => renameSession(this.prefsFile, req.sessionId, req.name),
    dismissHooksNotice: async (req) => hideHooksNotice(this.prefsFile, req.project),
    getSettings: async () => ({ claudeRoot: this.claudeRoot, demo: this.demo, version: this.opts.version ?? 'dev' }),
    getPrices: async () => {
      const { book, notice } = await loadPrices();
      return { overrides: book.overrides, asOf: book.asOf, source: book.source, notice };
    },
    comparePrompts: async (req) => {
      const [a, b] = [await this.insightSession(req.a.session), await this.insightSession(req.b.session)];
      return runCompare({ ...a, prompt: req.a.promptUuid }, { ...b, prompt: req.b.promptUuid }, { cwd: process.cwd(), claudeRoot: this.claudeRoot });
    },
    exportSession: async (req) => {
      const s = await this.insightSession(req.session);
      return this.exports.run(req.job, (signal, onProgress) => runExport(s, { branch: req.branch, format: req.format, redact: req.redact, signal, onProgress }));
    },
    cancelExport: async (req) => ({ cancelled: this.exports.cancel(req.job) }),
    setSettings: async (req) => {
      if (req.demo) await this.useDemo();
      else if (req.claudeRoot) {
        const st = await stat(req.claudeRoot).catch(() => null);
        if (!st?.isDirectory()) throw new RewindError('NOT_FOUND', `not a folder: ${req.claudeRoot}`);
        this.claudeRoot = req.claudeRoot;
        this.demo = false;
      }
      this.cancelDeferredWatch();
      if (this.opts.watch !== false) await this.startWatching();
      this.emit({ type: 'sessionsChanged' });
      return { claudeRoot: this.claudeRoot, demo: this.demo, version: this.opts.version ?? 'dev' };
    },
  };

  /** Each agent with sessions in the project: are Rewind's hooks installed for it (any scope)? Codex's trust is not asked here (it starts codex). */
  private async agentsHooks(project: string) {
    const { agentStatus } = await import('../../engine/hooks/agents-hooks.js');
    const out = [];
    for (const { adapter, root } of this.roots()) {
      if (!adapter.hooks || !(await adapter.newestFor(project, root).catch(() => null))) continue;
      const s = await agentStatus(adapter.id, { projectRoot: project, env: this.env, claudeDir: this.claudeRoot }, { checkTrust: false });
      const installed = s.scopes.find((x) => x.events.length > 0);
      out.push({ agent: s.agent, displayName: s.displayName, installed: !!installed, file: (installed ?? s.scopes[0]!).file, nextStep: installed ? (adapter.hooks.trust?.howTo ?? null) : null });
    }
    return out;
  }

  private hookCommandLine(): string {
    const cli = this.opts.cli;
    if (!cli) throw new RewindError('INTERNAL', 'this build does not know where its CLI is');
    return hookCommand(cli.node, cli.script);
  }
}

/** A folder that exists (not a file, not missing). */
async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}
