import type { CodePlan } from '../../../shared/contract.js';
import { fileChangeSummary } from '../../../shared/wording.js';
import { parseFilePatch, type ParsedPatch } from './patch.js';

type Change = CodePlan['changes'][number];

/** Past this many changed lines a file is summarized; its diff opens on demand. */
const LARGE_FILE_LINES = 1500;
/** Diff lines drawn open at first, all files together; files past it start collapsed. */
const OPEN_BUDGET = 4000;

export interface FileEntry {
  change: Change;
  parsed: ParsedPatch | null;
  /** Why the diff is not drawn as is (binary, too large, no diff yet); null when it is. */
  summary: string | null;
  large: boolean;
}

/** A changed file as the preview shows it: its parsed diff, or why a summary stands in for it. */
export function entryOf(change: Change): FileEntry {
  const parsed = change.patch && !change.binary ? parseFilePatch(change.patch) : null;
  const changed = parsed ? parsed.added + parsed.removed : 0;
  const large = changed > LARGE_FILE_LINES;
  let summary: string | null = null;
  if (change.kind === 'd') summary = change.action === 'delete' ? 'folder, removed' : 'folder';
  else if (!parsed) summary = change.note ?? fileChangeSummary(change);
  else if (large) summary = fileChangeSummary(change, changed);
  else if (parsed.hunks.length === 0) summary = 'only the file mode differs';
  return { change, parsed, summary, large };
}


/** Files open at first: in order, until the budget of drawn lines is spent (a 500-file restore stays quick). */
export function initiallyOpen(entries: FileEntry[]): Record<string, boolean> {
  const open: Record<string, boolean> = {};
  let budget = OPEN_BUDGET;
  for (const e of entries) {
    open[e.change.path] = budget > 0;
    budget -= e.parsed && !e.large ? e.parsed.hunks.reduce((n, h) => n + h.lines.length, 0) : 1;
  }
  return open;
}
