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

/**
 * Files as Rewind last wrote them, by path: a fork, an in-place rewrite, an undone rewrite (its
 * original put back), with the size it left. A file still that size is Rewind's write, not an agent's.
 */
export function rewindWrites(records: JournalRecord[]): Map<string, number> {
  const ourSize = new Map<string, number>();
  // An undo a redo cancelled leaves the rewrite's file, not the backup.
  const active = new Set<JournalRecord>(activeUndos(records));
  for (const r of records) {
    if (r.kind === 'fork') ourSize.set(r.forkPath, r.result.size);
    else if (r.kind === 'in-place') ourSize.set(r.transcript, r.result.size);
    else if (r.kind === 'undo' && active.has(r)) {
      const undone = records.find((x) => x.id === r.undoes);
      if (undone?.kind === 'in-place') ourSize.set(undone.transcript, undone.original.size);
    }
  }
  return ourSize;
}

export function annotateSessions<T extends Annotated>(sessions: T[], records: JournalRecord[]): T[] {
  const forkOf = new Map<string, string>();
  const forkAt = new Map<string, number>();
  for (const r of records) {
    if (r.kind !== 'fork') continue;
    forkOf.set(r.forkSessionId, r.sessionId);
    if (r.promptNumber) forkAt.set(r.forkSessionId, r.promptNumber);
  }
  const ourSize = rewindWrites(records);
  return sessions.map((s) => ({ ...s, forkOf: forkOf.get(s.id) ?? s.forkOf, forkAt: forkAt.get(s.id) ?? s.forkAt ?? null, live: s.live && ourSize.get(s.transcriptPath) !== s.sizeBytes }));
}

/** The journal records of these project folders (those that have one). */
async function journalsOf(cwds: string[]): Promise<JournalRecord[]> {
  // A stat per project first (a failed open through the promise API costs far more, per folder).
  const paths = [...new Set(cwds)].map(journalPath).filter((p) => existsSync(p));
  // Without blocking on a FIFO (or following a link) a project ships as its journal: the session list never hangs on one.
  const { readOwnText } = await import('../io/own-file.js');
  const texts = (await Promise.all(paths.map((p) => readOwnText(p).then((t) => t ?? '', () => '')))).filter(Boolean);
  // Most projects have no journal: the schemas (zod, a large module to load) only when one has.
  if (texts.length === 0) return [];
  const { parseJournal } = await import('./record.js');
  return texts.flatMap(parseJournal);
}

/** `rewindWrites` of the journals of the projects these folders are in (the nearest folder with a store, else the folder). */
export async function rewindWritesIn(cwds: string[]): Promise<Map<string, number>> {
  const { findProjectRoot } = await import('../project.js');
  const roots = await Promise.all(cwds.map(async (c) => (await findProjectRoot(c)) ?? c));
  return rewindWrites(await journalsOf(roots));
}

/** The journals of every project the sessions belong to, read and applied. */
export async function withJournals<T extends Annotated>(sessions: T[]): Promise<T[]> {
  return annotateSessions(sessions, await journalsOf(sessions.map((s) => s.cwd).filter((c): c is string => !!c)));
}
