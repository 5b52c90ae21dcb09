import { diff3Merge, mergeDiff3 } from 'node-diff3';

/** What the user picked for a conflicted file: keep it as it is, take it as before the prompt, or markers. */
export type Take = 'current' | 'before' | 'markers';
export const TAKES: readonly Take[] = ['current', 'before', 'markers'];

/** One file's revert: base = after the prompt, ours = now, theirs = before the prompt (null: absent). */
export type MergeOutcome =
  | { outcome: 'unchanged' }
  | { outcome: 'clean'; result: Buffer | null }
  | { outcome: 'conflict'; reason: string; markers: Buffer | null };

const isBinary = (b: Buffer | null) => !!b && b.subarray(0, 8000).includes(0);
const eq = (a: Buffer | null, b: Buffer | null) => (a === null ? b === null : b !== null && a.equals(b));
const LABELS = { a: 'current', o: 'after the prompt', b: 'before the prompt' };

/** Conflict markers around a whole side: for a file one side does not have. */
function wholeMarkers(ours: Buffer | null, theirs: Buffer | null): Buffer {
  const side = (b: Buffer | null) => (b === null || b.length === 0 ? '' : b.toString('utf8').endsWith('\n') ? b.toString('utf8') : `${b.toString('utf8')}\n`);
  return Buffer.from(`<<<<<<< ${LABELS.a}\n${side(ours)}=======\n${side(theirs)}>>>>>>> ${LABELS.b}\n`);
}

/**
 * Pure: takes one prompt's change back out of a file that may have changed since, by a three-way
 * merge (node-diff3). A later change that overlaps the prompt's is a conflict: never guessed.
 */
export function revertFile(base: Buffer | null, ours: Buffer | null, theirs: Buffer | null): MergeOutcome {
  if (eq(ours, theirs)) return { outcome: 'unchanged' };
  if (eq(ours, base)) return { outcome: 'clean', result: theirs };
  if (base === null) return { outcome: 'conflict', reason: 'the prompt created this file and it changed since: deleting it would lose those changes', markers: isBinary(ours) ? null : wholeMarkers(ours, theirs) };
  if (ours === null) return { outcome: 'conflict', reason: 'deleted since the prompt, which had changed it', markers: isBinary(theirs) ? null : wholeMarkers(ours, theirs) };
  if (theirs === null) return { outcome: 'conflict', reason: 'the prompt created this file and it changed since: deleting it would lose those changes', markers: isBinary(ours) ? null : wholeMarkers(ours, theirs) };
  if (isBinary(base) || isBinary(ours) || isBinary(theirs)) return { outcome: 'conflict', reason: 'a binary file the prompt changed was changed again since', markers: null };
  const [o, a, b] = [base, ours, theirs].map((x) => x.toString('utf8').split('\n'));
  const regions = diff3Merge(a!, o!, b!, { excludeFalseConflicts: true });
  if (regions.every((r) => r.ok)) return { outcome: 'clean', result: Buffer.from(regions.flatMap((r) => r.ok ?? []).join('\n')) };
  // git's diff3 style: the lines as the prompt left them sit between the two sides.
  const marked = mergeDiff3(a!, o!, b!, { excludeFalseConflicts: true, label: LABELS });
  const n = regions.filter((r) => r.conflict).length;
  return { outcome: 'conflict', reason: `${n === 1 ? 'a later change overlaps' : `${n} later changes overlap`} the prompt's`, markers: Buffer.from(marked.result.join('\n')) };
}

/** The file a choice leaves; null: absent. Markers for a file that cannot hold them is refused by the caller. */
export function resolveTake(take: Take, ours: Buffer | null, theirs: Buffer | null, markers: Buffer | null): Buffer | null {
  if (take === 'current') return ours;
  if (take === 'before') return theirs;
  return markers;
}
