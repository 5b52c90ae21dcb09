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
}

const MAX_DIFF_BYTES = 1024 * 1024;
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
    out.push({
      path: c.path,
      binary,
      sizeBefore: a ? a.length : null,
      sizeAfter: b ? b.length : null,
      patch: binary ? null : gitStyle(createTwoFilesPatch(a ? `a/${c.path}` : '/dev/null', b ? `b/${c.path}` : '/dev/null', a?.toString('utf8') ?? '', b?.toString('utf8') ?? '', '', '', { context: 3 })),
    });
  }
  return out;
}
