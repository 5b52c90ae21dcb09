import { readOwnText } from '../io/own-file.js';
import { z } from 'zod';
import { journalPath } from './append.js';
import { activeUndos } from './undos.js';

export { activeUndos };

const FingerprintSchema = z.object({ size: z.number(), head: z.string(), tail: z.string() });
/** Records of one user action (a fork and its code restore) share a group: one undo reverts them all. */
const group = z.string().optional();

export const JournalRecordSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('fork'),
    id: z.string(),
    group,
    time: z.string(),
    transcript: z.string(),
    sessionId: z.string(),
    forkPath: z.string(),
    forkSessionId: z.string(),
    fileHistoryDir: z.string().nullable(),
    result: FingerprintSchema,
    boundaryOffset: z.number(),
    prompts: z.array(z.string()),
    /** The live-path number of the prompt cut before, when the caller knew it (the window does). */
    promptNumber: z.number().int().positive().optional(),
  }),
  z.object({
    kind: z.literal('in-place'),
    id: z.string(),
    group,
    time: z.string(),
    transcript: z.string(),
    sessionId: z.string(),
    backupPath: z.string(),
    original: FingerprintSchema,
    result: FingerprintSchema,
    boundaryOffset: z.number(),
    prompts: z.array(z.string()),
  }),
  z.object({
    kind: z.literal('restore'),
    id: z.string(),
    group,
    time: z.string(),
    checkpointId: z.string(),
    preRestoreCheckpointId: z.string(),
    postRestoreCheckpointId: z.string().optional(),
    projectRoot: z.string().optional(),
  }),
  z.object({
    kind: z.literal('revert'),
    id: z.string(),
    group,
    time: z.string(),
    /** The prompt whose changes were taken back, and its session (any agent). */
    promptId: z.string(),
    agent: z.string().nullable(),
    sessionId: z.string().nullable(),
    transcript: z.string().nullable(),
    /** The checkpoints before and after the prompt's turn (null: the tree the agent left was the after). */
    checkpointId: z.string(),
    afterCheckpointId: z.string().nullable(),
    /** Conflicted files and what the user chose for each. */
    choices: z.record(z.string(), z.enum(['current', 'before', 'markers'])),
    preRestoreCheckpointId: z.string(),
    postRestoreCheckpointId: z.string().optional(),
    projectRoot: z.string().optional(),
  }),
  z.object({
    kind: z.literal('undo'),
    id: z.string(),
    group,
    time: z.string(),
    undoes: z.string(),
    /** What a redo needs: the fork or rewritten transcript set aside, byte for byte. */
    keptAt: z.string().nullable().optional(),
    /** In-place: the transcript as the undo left it (a redo refuses when it changed since). */
    left: FingerprintSchema.optional(),
    /** A restore or revert undone: the tree before and after the undo. */
    preUndoCheckpointId: z.string().optional(),
    postUndoCheckpointId: z.string().optional(),
  }),
  /** Puts an undone action back: the undo it cancels no longer counts. */
  z.object({
    kind: z.literal('redo'),
    id: z.string(),
    group,
    time: z.string(),
    redoes: z.string(),
    preRestoreCheckpointId: z.string().optional(),
    postRestoreCheckpointId: z.string().optional(),
  }),
  // A multi-file write about to start (restore, undo of a restore): its details are in
  // `.agent/rewind/pending/<id>.json` until the matching 'intent-end'; one without an end is
  // rolled back at the next run.
  z.object({ kind: z.literal('intent'), id: z.string(), time: z.string(), op: z.string(), preRestoreCheckpointId: z.string() }),
  z.object({ kind: z.literal('intent-end'), id: z.string(), time: z.string(), intent: z.string(), outcome: z.enum(['completed', 'rolled-back']) }),
]);
export type JournalRecord = z.infer<typeof JournalRecordSchema>;

export { appendJournal, journalPath } from './append.js';

export async function readJournal(projectRoot: string): Promise<JournalRecord[]> {
  let text: string;
  try {
    // Never a blocking read of a FIFO, nor through a link, a cloned project ships as its journal.
    text = (await readOwnText(journalPath(projectRoot))) ?? '';
  } catch {
    return [];
  }
  return parseJournal(text);
}

/** A journal file's records, each validated; lines that do not parse are skipped. */
export function parseJournal(text: string): JournalRecord[] {
  const out: JournalRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JournalRecordSchema.safeParse(JSON.parse(line));
      if (r.success) out.push(r.data);
    } catch {
      // A torn last line (crash mid-append) is skipped.
    }
  }
  return out;
}

export type UndoableRecord = Extract<JournalRecord, { kind: 'fork' | 'in-place' | 'restore' | 'revert' }>;
export type UndoRecord = Extract<JournalRecord, { kind: 'undo' }>;

export const isUndoable = (r: JournalRecord): r is UndoableRecord => r.kind === 'fork' || r.kind === 'in-place' || r.kind === 'restore' || r.kind === 'revert';


/** Ids of the actions that are undone now (an undo a redo cancelled does not count). */
export function undoneIds(records: JournalRecord[]): Set<string> {
  return new Set(activeUndos(records).map((u) => u.undoes));
}

/** The newest operation that has not been undone (undo and intent records are not undoable). */
export function latestUndoable(records: JournalRecord[]): UndoableRecord | null {
  const undone = undoneIds(records);
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (isUndoable(r) && !undone.has(r.id)) return r;
  }
  return null;
}

/** The not-yet-undone records of the newest action, newest first: one record, or every record of its group. */
export function latestAction(records: JournalRecord[]): UndoableRecord[] {
  const r = latestUndoable(records);
  if (!r) return [];
  if (!r.group) return [r];
  const undone = undoneIds(records);
  const out: UndoableRecord[] = [];
  for (let i = records.length - 1; i >= 0; i--) {
    const x = records[i]!;
    if (isUndoable(x) && x.group === r.group && !undone.has(x.id)) out.push(x);
  }
  return out;
}
