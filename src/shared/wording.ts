/** Words the CLI and the window both say: the same outcome reads the same in both. */

export function plural(n: number, word: string): string {
  if (n === 1) return `${n} ${word}`;
  return `${n} ${/(s|x|ch|sh)$/.test(word) ? `${word}es` : `${word}s`}`;
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
