import type { JournalRecord, UndoRecord } from './record.js';

// Apart from journal.ts (and its zod schemas) so the session list can apply journals without loading them.
/** Undo records a later redo has not cancelled: the ones that count. */
export function activeUndos(records: JournalRecord[]): UndoRecord[] {
  const redone = new Set(records.flatMap((r) => (r.kind === 'redo' ? [r.redoes] : [])));
  return records.filter((r): r is UndoRecord => r.kind === 'undo' && !redone.has(r.id));
}
