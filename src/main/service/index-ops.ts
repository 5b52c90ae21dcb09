import { sep } from 'node:path';
import { adapterFor, type AgentId } from '../../engine/agents/registry.js';
import { SearchIndex, type SearchOptions, type Source } from '../../engine/search-index/search-index.js';
import type { SessionSummary } from '../../shared/session-schema.js';

/**
 * The search and metadata index as engine operations: it lives on the engine worker (one per
 * folder), so a first build or a search never holds the service's main thread.
 */
const open = new Map<string, Promise<SearchIndex>>();

function indexAt(dir: string): Promise<SearchIndex> {
  let ix = open.get(dir);
  if (!ix) {
    ix = SearchIndex.open(dir);
    open.set(dir, ix);
    ix.catch(() => open.delete(dir));
  }
  return ix;
}

export interface IndexRoots {
  dir: string;
  roots: { agent: AgentId; root: string }[];
}

const sources = (a: IndexRoots): Source[] => a.roots.map((r) => ({ adapter: adapterFor(r.agent), root: r.root }));

export const INDEX_OPS = {
  /** Opens (reads and checks) the persisted index ahead of the first list. */
  indexOpen: async (a: { dir: string }) => {
    await indexAt(a.dir);
    return null;
  },
  /** Brings the index up to date within `budgetMs`, then searches it; what was left out is in the result. */
  indexSearch: async (a: IndexRoots & { query: string; opts: SearchOptions; budgetMs?: number; refresh?: boolean }) => {
    const ix = await indexAt(a.dir);
    // The service skips the refresh (a stat of every file) while its watcher keeps the index current.
    const pending = a.refresh === false ? 0 : (await ix.refresh(sources(a), { budgetMs: a.budgetMs })).pending.length;
    const result = await ix.recovering(() => ix.search(a.query, a.opts));
    return { result, notices: ix.notices.splice(0), pending };
  },
  /**
   * Every session's summary with counts; files not indexed yet (budget) come from their heads, counts
   * unknown. `stored`: what the persisted index holds, with no look at the files (a window's first
   * list; the caller refreshes after), unless it is empty. `changed`: summaries the refresh changed.
   */
  indexSummaries: async (a: IndexRoots & { project?: string; budgetMs?: number; stored?: boolean }) => {
    const ix = await indexAt(a.dir);
    if (a.stored && ix.fileCount > 0) {
      // The index may also hold another root's sessions (a root given once before): only these roots'.
      const under = a.roots.map((r) => (r.root.endsWith(sep) ? r.root : r.root + sep));
      const sessions = ix.summaries({ project: a.project }).filter((s) => under.some((u) => s.transcriptPath.startsWith(u)));
      if (sessions.length > 0) return { sessions, pending: 0, changed: 0, stored: true };
    }
    const report = await ix.refresh(sources(a), { budgetMs: a.budgetMs });
    const sessions: SessionSummary[] = await ix.recovering(() => ix.summaries({ project: a.project }));
    if (report.pending.length > 0) {
      const byPath = new Map(sessions.map((s) => [s.transcriptPath, s]));
      for (const { adapter, root } of sources(a)) {
        const files = await adapter.sessionFiles(root).catch(() => []);
        const left = new Set(report.pending.map((p) => p.path));
        const mine = files.filter((f) => left.has(f.path) && !byPath.has(f.path));
        if (mine.length === 0) continue;
        if (adapter.summarizeFile) {
          for (const f of mine) {
            const s = await adapter.summarizeFile(f).catch(() => null);
            if (s && (!a.project || s.cwd === a.project)) sessions.push(s);
          }
        } else {
          const all = await adapter.summarize(root, { project: a.project }).catch(() => []);
          const want = new Set(mine.map((f) => f.path));
          sessions.push(...all.filter((s) => want.has(s.transcriptPath)).map((s) => ({ ...s, promptCount: null, livePromptCount: null })));
        }
      }
      sessions.sort((x, y) => y.lastActivity.localeCompare(x.lastActivity));
    }
    return { sessions, pending: report.pending.length, changed: report.changed.length + report.deleted, stored: false };
  },
  /** One session file changed: its new summary (null: it is gone). */
  indexFile: async (a: { dir: string; agent: AgentId; root: string; path: string }) => {
    const ix = await indexAt(a.dir);
    return ix.refreshFile(adapterFor(a.agent), a.root, a.path);
  },
};
