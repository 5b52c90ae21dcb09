import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { homedir } from 'node:os';
import type { Agent } from '../../shared/session-schema.js';
import type { AgentAdapter, SessionFile } from './adapter.js';
import type { AgentHooks } from '../hooks/agent-hooks.js';
import { LIVE_WINDOW_MS } from './live-window.js';
import { RewindError } from '../errors.js';
import { splitRef } from './sqlite-sessions.js';
import { unjudgedReason, type JudgedVersions } from './judged.js';

/**
 * An agent whose sessions live in an OpenCode-style SQLite store (OpenCode, and Kilo, its fork):
 * everything but the names is the same, so each agent's folder is this with its own names. The
 * store is `<data dir>/<db>` (`$XDG_DATA_HOME/<dir>/`, else `~/.local/share/<dir>/`; the agent's
 * `<PREFIX>_DB` moves it); a session is named `<store>#<session id>` (sqlite-sessions.ts).
 */
export interface StoreAgentNames {
  id: Agent;
  displayName: string;
  badge: string;
  /** The CLI ("opencode"): also the data folder's name and the store's (`opencode.db`). */
  command: string;
  /** Its env prefix ("OPENCODE"): `<PREFIX>_DB`, `<PREFIX>_BIN` (Rewind's: which CLI to run). */
  envPrefix: string;
  hooks?: AgentHooks;
  /** The versions judged right (judged.json): a session of a newer release is read, never rewound. */
  judged?: JudgedVersions;
}

export function storeAgent(n: StoreAgentNames): AgentAdapter {
  const dbName = `${n.command}.db`;
  const spec = { agent: n.id, name: n.displayName };
  const serve = { command: n.command, envBin: `REWIND_${n.envPrefix}_BIN`, envDb: `${n.envPrefix}_DB`, name: n.displayName };
  const agent = { store: spec, serve };
  const dbOf = (root: string) => join(root, dbName);
  const sessions = async () => import('./sqlite-sessions.js');
  const files = async (root: string): Promise<SessionFile[]> => {
    const { storeSessions, sessionRef } = await sessions();
    const db = dbOf(root);
    const st = await stat(db).catch(() => null);
    if (!st) return [];
    // A session's size is the store's with its WAL, its time its last update: the index reads the
    // store again only when one of them moved.
    const wal = await stat(`${db}-wal`).catch(() => null);
    const size = st.size + (wal?.size ?? 0);
    // Subagent sessions (`parent_id`) belong to the session that started them: not listed.
    return (await storeSessions(db)).filter((r) => !r.parentId).map((r) => ({ path: sessionRef(db, r.id), sessionId: r.id, size, mtimeMs: r.updated }));
  };
  // The store records the CLI version that wrote each session (`session.version`).
  const readOnlyReason = async (path: string): Promise<string | null> => {
    const r = splitRef(path);
    if (!r || !n.judged) return null;
    const { storeSessions } = await sessions();
    const row = (await storeSessions(r.db).catch(() => [])).find((s) => s.id === r.id);
    const reason = unjudgedReason(n.displayName, row?.version ?? null, n.judged);
    return reason ? `This ${n.displayName} session is read only: ${reason}` : null;
  };
  const owns = (path: string) => {
    const r = splitRef(path);
    return !!r && basename(r.db) === dbName;
  };
  return {
    id: n.id,
    displayName: n.displayName,
    badge: n.badge,
    ...(n.hooks ? { hooks: n.hooks, checkpointHooks: true } : {}),
    // The agent's shadow-git snapshots (git projects only): the fallback where Rewind has no checkpoint.
    codeHistory: {
      label: `${n.displayName}'s own snapshots`,
      covers: 'the whole worktree as its snapshot at the start of the prompt\'s turn holds it',
      before: async (req) => (await import('./sqlite-code-history.js')).storeCodeBefore(spec, req),
    },
    root(env, override) {
      if (override) return override;
      const db = env[`${n.envPrefix}_DB`];
      if (db) return dirname(db);
      return join(env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share'), n.command);
    },
    storeRootOf: (path, root) => {
      const r = splitRef(path);
      return r ? dirname(r.db) : root;
    },
    watch: (root) => ({ dirs: [root], depth: 0, isSessionFile: (p) => basename(p) === dbName || basename(p) === `${dbName}-wal` }),
    sessionFiles: files,
    owns: (path) => owns(path),
    async find(ref, root) {
      const { findInStore } = await sessions();
      return findInStore(spec, dbOf(root), ref);
    },
    async newestFor(cwd, root) {
      const { newestInStore } = await sessions();
      return newestInStore(dbOf(root), cwd);
    },
    async summarize(root, opts = {}) {
      const { summarizeStore } = await sessions();
      return summarizeStore(spec, dbOf(root), { project: opts.project, now: opts.now, liveWindowMs: LIVE_WINDOW_MS });
    },
    async storeIndex(root, now) {
      const { indexStore } = await sessions();
      const entries = await indexStore(spec, dbOf(root), { now, liveWindowMs: LIVE_WINDOW_MS });
      return new Map(entries.map((e) => [e.summary.transcriptPath, e]));
    },
    async timeline(path) {
      const { readStoreTimeline } = await sessions();
      return readStoreTimeline(spec, path);
    },
    async turn(path, promptUuid) {
      const { readStoreTurn } = await sessions();
      return readStoreTurn(spec, path, promptUuid);
    },
    // The store has no prompt lines to scan: the index reads its prompts through `storeIndex`.
    promptLines: { marker: Buffer.from('"role":"user"'), prompt: () => null },
    readOnlyReason,
    async rewind(req) {
      const why = await readOnlyReason(req.transcriptPath);
      if (why) throw new RewindError('UNSUPPORTED', why);
      const { rewindStore } = await import('./sqlite-rewind.js');
      return rewindStore(agent, req);
    },
    async undoRewind(r, opts) {
      const { undoStoreRewind } = await import('./sqlite-rewind.js');
      return undoStoreRewind(agent, r, opts);
    },
    mcpConfig: async () => (await import('./sqlite-mcp.js')).storeMcpConfig(n.command),
    resumeCommand: (id) => `${n.command} -s ${id}`,
    // No marker of its own: its processes holding this store open (sqlite-open.ts).
    openSessions: async (root) => (await import('./sqlite-open.js')).storeOpenSessions(n.command, dbOf(root)),
    sessionIdOf: async (path) => splitRef(path)?.id ?? null,
    async isLive(path, opts = {}) {
      const r = splitRef(path);
      if (!r) return false;
      const { storeSessions } = await sessions();
      const row = (await storeSessions(r.db).catch(() => [])).find((s) => s.id === r.id);
      return !!row && (opts.now ?? Date.now()) - row.updated < (opts.windowMs ?? LIVE_WINDOW_MS);
    },
  };
}
