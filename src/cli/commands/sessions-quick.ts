import type { SessionFile } from '../../engine/agents/adapter.js';
import type { rootsFor } from '../../engine/agents/registry.js';
import { defaultCacheDir } from '../../engine/io/cache-dir.js';
import { withJournals } from '../../engine/journal/session-annotations.js';
import { listSources } from '../../engine/search-index/list-sources.js';
import { freshListSnapshot, indexDir, type SnapshotSession } from '../../engine/search-index/list-snapshot.js';
import type { CliIO } from '../io.js';

export interface QuickSessions {
  /** The list from the index's snapshot (null: none that is fresh; the index must be opened). */
  sessions: SnapshotSession[] | null;
  /** The session files as listed for the check (the index's refresh reuses them). */
  listed: SessionFile[][];
}

/**
 * `sessions` without opening the index: the session files are listed (a stat each), and when the
 * index's list snapshot holds every one of them unchanged, it is the answer, with the journals'
 * annotations and the live flag worked out now.
 */
export async function quickSessions(io: CliIO, roots: ReturnType<typeof rootsFor>, project: string | undefined): Promise<QuickSessions> {
  const listed = await listSources(roots);
  const snap = freshListSnapshot(indexDir(defaultCacheDir(io.env)), listed, Date.now());
  if (!snap) return { sessions: null, listed };
  const picked = project ? snap.sessions.filter((s) => s.cwd === project) : snap.sessions;
  return { sessions: await withJournals(picked), listed };
}
