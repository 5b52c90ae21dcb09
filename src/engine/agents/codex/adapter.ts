import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { codexHooks } from './hooks.js';
import type { AgentAdapter } from '../adapter.js';
import { isRolloutHead } from './head.js';
import { CODEX_PROMPTS } from './prompts.js';

/** Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, linear logs (FORMATS.md §2). */
export const codex: AgentAdapter = {
  id: 'codex',
  displayName: 'Codex CLI',
  badge: 'Codex',
  hooks: codexHooks,

  mcpConfig: async () => (await import('./mcp-config.js')).codexMcpConfig,
  root: (env, override) => override || env.CODEX_HOME || join(env.HOME || homedir(), '.codex'),
  watch: (root) => ({ dirs: [join(root, 'sessions')], depth: 4, isSessionFile: (p) => p.endsWith('.jsonl') }),
  async sessionFiles(root) {
    const { currentGenerations, listRolloutFiles, rolloutIdFromPath } = await import('./discover.js');
    const files = await currentGenerations(await listRolloutFiles(root));
    return files.sort((a, b) => b.mtimeMs - a.mtimeMs).map((f) => ({ ...f, sessionId: rolloutIdFromPath(f.path) }));
  },
  owns: (_path, first) => !!first && isRolloutHead(first),
  async find(ref, root) {
    const { findCodexSession } = await import('./discover.js');
    return findCodexSession(ref, root);
  },
  async newestFor(cwd, root) {
    const { listCodexSessions } = await import('./discover.js');
    return (await listCodexSessions({ home: root, project: cwd }))[0]?.transcriptPath ?? null;
  },

  async summarize(root, opts = {}) {
    const { listCodexSessions } = await import('./discover.js');
    const { withJournals } = await import('../../journal/session-annotations.js');
    // The journals of the sessions' projects name the forks Rewind made.
    return withJournals(await listCodexSessions({ home: root, project: opts.project, now: opts.now, countBudgetBytes: opts.countBudgetBytes }));
  },
  async timeline(path) {
    const { parseRollout } = await import('./rollout.js');
    return parseRollout(path);
  },
  async turn(path, promptUuid) {
    const { codexTurn } = await import('./turn.js');
    return codexTurn(path, promptUuid);
  },
  promptLines: CODEX_PROMPTS,

  async rewind(req) {
    const { rewindRollout } = await import('./rewind.js');
    return rewindRollout(req);
  },
  async readOnlyReason(path) {
    const { readOnlyReason } = await import('./rewind.js');
    return readOnlyReason(path);
  },
  storeRootOf: (path, root) => homeOfRolloutPath(path) ?? root,
  openSessions: async (root) => (await import('./open.js')).codexOpenSessions(root),
  openMarkerDirs: (root) => [join(root, 'thread-writer-locks')],
  sessionIdOf: async (path) => (await import('./discover.js')).rolloutIdFromPath(path),
  resumeCommand: (id) => `codex resume ${id}`,
  async rewindThroughAgent(req, open) {
    const { revertThroughDaemon } = await import('./through-daemon.js');
    return revertThroughDaemon(req, open);
  },
  async rewritten(path) {
    const { clearThreadProjection, projectionKeys, THREAD_HISTORY_DB } = await import('./thread-history.js');
    const { homeOfRollout, rolloutName } = await import('./thread.js');
    const home = homeOfRollout(path);
    const { threadId, generation } = rolloutName(path);
    if (!home || !threadId) return [];
    const r = await clearThreadProjection(home, projectionKeys(threadId, generation)).catch((e: unknown) => ({ busy: `Codex's turn list in ${THREAD_HISTORY_DB} was not cleared (${(e as Error).message}): it may show the wrong turns` }));
    return 'busy' in r ? [r.busy] : [];
  },
  async isLive(path, opts = {}) {
    const st = await stat(path).catch(() => null);
    if (!st) return false;
    if ((opts.now ?? Date.now()) - st.mtimeMs < (opts.windowMs ?? 10_000)) return true;
    const { writerLock } = await import('./rewind.js');
    const { rolloutName } = await import('./thread.js');
    const id = rolloutName(path).threadId;
    return !!id && !!(await writerLock(path, id));
  },
};

/** `$CODEX_HOME` of a rollout at `<home>/sessions/YYYY/MM/DD/<file>` (thread.ts's `homeOfRollout`, kept here off its imports). */
function homeOfRolloutPath(path: string): string | null {
  const sessions = dirname(dirname(dirname(dirname(path))));
  return basename(sessions) === 'sessions' && /^\d{4}$/.test(basename(dirname(dirname(dirname(path))))) ? dirname(sessions) : null;
}
