/** Words the CLI and the window both say: the same outcome reads the same in both. */

export function plural(n: number, word: string): string {
  if (n === 1) return `${n} ${word}`;
  return `${n} ${/(s|x|ch|sh)$/.test(word) ? `${word}es` : `${word}s`}`;
}

/** "a", "a and b", "a, b and c", "a, b, c and 4 more": a list a sentence can hold. */
export function listed(items: string[], max = 3): string {
  if (items.length <= 1) return items[0] ?? '';
  if (items.length <= max) return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/** "1 file Claude never edited stays as it is: a.txt"; several: "... stay as they are: a, b and c". */
export function untouchedSentence(paths: string[]): string {
  const one = paths.length === 1;
  return `${plural(paths.length, 'file')} Claude never edited ${one ? 'stays as it is' : 'stay as they are'}: ${listed(paths)}`;
}

export function bytes(n: number | null): string {
  if (n === null) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KB`;
  return `${(n / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB`;
}

/** A file whose diff is not shown, in a few words: "binary, 12 KB → 14 KB", "large file: 1 line changed". */
export function fileChangeSummary(c: { action: 'create' | 'modify' | 'delete' | 'unchanged'; binary: boolean; sizeBefore: number | null; sizeAfter: number | null }, changedLines?: number): string {
  const sizes = c.action === 'create' ? bytes(c.sizeAfter) : c.action === 'delete' ? bytes(c.sizeBefore) : c.sizeBefore === null && c.sizeAfter === null ? '' : `${bytes(c.sizeBefore)} → ${bytes(c.sizeAfter)}`;
  if (c.binary) return `binary${sizes ? `, ${sizes}` : ''}`;
  if (changedLines !== undefined) return `large file: ${plural(changedLines, 'line')} changed`;
  return sizes ? `${sizes}, no diff computed` : 'no diff computed';
}

/** What a code restore did, in one line: "Restored 3 files (1 written back, 2 deleted)". */
export function restoredSummary(applied: { written: number; deleted: number }): string {
  const { written, deleted } = applied;
  if (written + deleted === 0) return 'Restored: the files already matched';
  if (deleted === 0) return `Restored ${plural(written, 'file')}`;
  if (written === 0) return `Restored: deleted ${plural(deleted, 'file')} made since`;
  return `Restored ${plural(written + deleted, 'file')} (${written} written back, ${deleted} deleted)`;
}

/** Where the code a compared side ended with was read from. */
export function treeSourceText(s: { kind: 'checkpoint'; id: string } | { kind: 'disk' } | { kind: 'agent-history'; files: number } | { kind: 'unknown'; reason: string }): string {
  if (s.kind === 'checkpoint') return `Rewind checkpoint ${s.id}`;
  if (s.kind === 'disk') return 'the files on disk now';
  if (s.kind === 'agent-history') return `the agent's own file history (${plural(s.files, 'tracked file')})`;
  return `not known: ${s.reason}`;
}
