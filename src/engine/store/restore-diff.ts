import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import type { FileChange } from './restore-plan.js';

/** As `git diff` prints it: no `===` rule, no tab after the file names (the library adds both). */
function gitStyle(patch: string): string {
  return patch.replace(/^=+\n/, '').replace(/^(---|\+\+\+) (.*)\t$/gm, '$1 $2');
}

export interface FileDiff {
  path: string;
  binary: boolean;
  sizeBefore: number | null;
  sizeAfter: number | null;
  /** Unified diff (current -> restored) for text files. */
  patch: string | null;
  /** For a text file too large to diff here: "large file: N lines changed". */
  note: string | null;
}

const MAX_DIFF_BYTES = 1024 * 1024;
/** Myers' diff costs about (lines) x (changes): past this budget we count instead of diffing. */
const DIFF_BUDGET = 4_000_000;

/** Lines only one side has (as a multiset): what a diff would mark, counted in linear time. */
export function changedLineCount(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const l of a.split('\n')) counts.set(l, (counts.get(l) ?? 0) + 1);
  let added = 0;
  for (const l of b.split('\n')) {
    const n = counts.get(l) ?? 0;
    if (n > 0) counts.set(l, n - 1);
    else added++;
  }
  let removed = 0;
  for (const n of counts.values()) removed += n;
  return added + removed;
}
const countLines = (t: string) => {
  let n = 0;
  for (let i = t.indexOf('\n'); i !== -1; i = t.indexOf('\n', i + 1)) n++;
  return n;
};
const isBinary = (b: Buffer) => b.subarray(0, 8000).includes(0);

/** Diffs for the files a plan changes; blobs come from `readBlob` (our store or Claude's backups). */
export async function diffChanges(root: string, changes: FileChange[], readBlob: (ref: string) => Promise<Buffer>): Promise<FileDiff[]> {
  const out: FileDiff[] = [];
  for (const c of changes) {
    if (c.before?.kind === 'd' || c.after?.kind === 'd') continue;
    const load = async (side: 'before' | 'after'): Promise<Buffer | null> => {
      const s = c[side];
      if (!s) return null;
      if (s.kind === 'l') return Buffer.from(`symlink -> ${s.ref}\n`);
      return side === 'before' ? readFile(join(root, c.path)).catch(() => Buffer.alloc(0)) : readBlob(s.ref);
    };
    const [a, b] = [await load('before'), await load('after')];
    const binary = (!!a && isBinary(a)) || (!!b && isBinary(b)) || (a?.length ?? 0) > MAX_DIFF_BYTES || (b?.length ?? 0) > MAX_DIFF_BYTES;
    const base = { path: c.path, binary, sizeBefore: a ? a.length : null, sizeAfter: b ? b.length : null };
    if (binary) {
      out.push({ ...base, patch: null, note: null });
      continue;
    }
    const [ta, tb] = [a?.toString('utf8') ?? '', b?.toString('utf8') ?? ''];
    const lines = (ta.length + tb.length) / 40 + 2;
    const changed = lines > 2000 ? changedLineCount(ta, tb) : 0;
    if (changed * (countLines(ta) + countLines(tb)) > DIFF_BUDGET) {
      out.push({ ...base, patch: null, note: `large file: ${changed} lines changed` });
      continue;
    }
    out.push({ ...base, note: null, patch: gitStyle(createTwoFilesPatch(a ? `a/${c.path}` : '/dev/null', b ? `b/${c.path}` : '/dev/null', ta, tb, '', '', { context: 3 })) });
  }
  return out;
}
