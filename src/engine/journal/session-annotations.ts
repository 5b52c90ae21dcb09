import { existsSync } from 'node:fs';
import type { SessionSummary } from '../../shared/session-schema.js';
import type { JournalRecord } from './record.js';
import { journalPath } from './append.js';
import { activeUndos } from './undos.js';

/**
 * What the pure journal says of listed sessions: which were forked from which, and which files are
 * still exactly as we wrote them (a fork, a rewrite, an undone rewrite: recent, but no agent is
 * writing them, so not live).
 */
/** What the journals change in a list entry, and what they go by. */
type Annotated = Pick<SessionSummary, 'id' | 'cwd' | 'transcriptPath' | 'sizeBytes' | 'live' | 'forkOf' | 'forkAt'>;

export function annotateSessions<T extends Annotated>(sessions: T[], records: JournalRecord[]): T[] {
  const forkOf = new Map<string, string>();
  const forkAt = new Map<string, number>();
  const ourSize = new Map<string, number>();
  // An undo a redo cancelled leaves the rewrite's file, not the backup.
  const active = new Set<JournalRecord>(activeUndos(records));
  for (const r of records) {
    if (r.kind === 'fork') {
      forkOf.set(r.forkSessionId, r.sessionId);
      if (r.promptNumber) forkAt.set(r.forkSessionId, r.promptNumber);
      ourSize.set(r.forkPath, r.result.size);
    } else if (r.kind === 'in-place') ourSize.set(r.transcript, r.result.size);
    else if (r.kind === 'undo' && active.has(r)) {
      const undone = records.find((x) => x.id === r.undoes);
      if (undone?.kind === 'in-place') ourSize.set(undone.transcript, undone.original.size);
    }
  }
  return sessions.map((s) => ({ ...s, forkOf: forkOf.get(s.id) ?? s.forkOf, forkAt: forkAt.get(s.id) ?? s.forkAt ?? null, live: s.live && ourSize.get(s.transcriptPath) !== s.sizeBytes }));
}

/** The journals of every project the sessions belong to, read and applied. */
export async function withJournals<T extends Annotated>(sessions: T[]): Promise<T[]> {
  const cwds = [...new Set(sessions.map((s) => s.cwd).filter((c): c is string => !!c))];
  // A stat per project first (a failed open through the promise API costs far more, per folder).
  const paths = cwds.map(journalPath).filter((p) => existsSync(p));
  // Without blocking on a FIFO (or following a link) a project ships as its journal: the session list never hangs on one.
  const { readOwnText } = await import('../io/own-file.js');
  const texts = (await Promise.all(paths.map((p) => readOwnText(p).then((t) => t ?? '', () => '')))).filter(Boolean);
  // Most projects have no journal: the schemas (zod, a large module to load) only when one has.
  if (texts.length === 0) return annotateSessions(sessions, []);
  const { parseJournal } = await import('./record.js');
  return annotateSessions(sessions, texts.flatMap(parseJournal));
}
