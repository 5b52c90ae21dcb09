import { join } from 'node:path';
import { appendOwnFile } from '../io/own-file.js';
import type { JournalRecord } from './record.js';
import { ensureStore, storeDir } from '../project.js';

export function journalPath(projectRoot: string): string {
  return join(storeDir(projectRoot), 'journal.jsonl');
}

/** Writing a record needs no schema (its type is checked at compile time): zod stays off the
 * write path of `back`, which must start fast. Records are validated where they are read. */
export async function appendJournal(projectRoot: string, record: JournalRecord): Promise<void> {
  await ensureStore(projectRoot);
  // One short line per append: O_APPEND writes of it do not interleave.
  await appendOwnFile(journalPath(projectRoot), `${JSON.stringify(record)}\n`);
}
