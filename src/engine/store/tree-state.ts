import { join } from 'node:path';
import type { Entry, Manifest } from './manifest.js';
import { hashFile } from './objects.js';
import { walkTree } from './walk-tree.js';

export interface NodeState {
  kind: 'f' | 'l' | 'd';
  /** Blob sha256 for files, the target for symlinks, '' for directories. */
  ref: string;
  mode: number;
  size: number;
  /** From the walk, when the state was read from disk: lets it serve as a stat cache. */
  mtimeMs?: number;
  ino?: number;
}

export type TreeState = Map<string, NodeState>;

export function treeFromEntries(entries: Entry[]): TreeState {
  return new Map(entries.map((e) => [e[0], { kind: e[1], ref: e[2], mode: e[3], size: e[4] }]));
}

/**
 * The tree as it is on disk now, with content hashes. A file whose size, mtime and inode match the
 * newest manifest is not read: its blob is taken from there.
 */
export async function currentTree(root: string, statCache: Manifest | null): Promise<TreeState> {
  const cache = new Map((statCache?.entries ?? []).map((e) => [e[0], e]));
  const walked = await walkTree(root);
  const out: TreeState = new Map();
  let next = 0;
  const worker = async () => {
    while (next < walked.length) {
      const w = walked[next++]!;
      const at = { mtimeMs: w.mtimeMs, ino: w.ino };
      if (w.kind === 'dir') out.set(w.path, { kind: 'd', ref: '', mode: w.mode, size: 0, ...at });
      else if (w.kind === 'symlink') out.set(w.path, { kind: 'l', ref: w.target ?? '', mode: 0o777, size: 0, ...at });
      else {
        const c = cache.get(w.path);
        const ref = c && c[1] === 'f' && c[4] === w.size && c[5] === w.mtimeMs && c[6] === w.ino ? c[2] : await hashFile(join(root, w.path));
        out.set(w.path, { kind: 'f', ref, mode: w.mode, size: w.size, ...at });
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return out;
}
