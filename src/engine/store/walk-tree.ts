import { lstatSync, readFileSync, readdirSync, readlinkSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { IgnoreStack } from './ignore-rules.js';

export interface WalkEntry {
  path: string;
  kind: 'file' | 'symlink' | 'dir';
  size: number;
  mode: number;
  mtimeMs: number;
  ino: number;
  /** For symlinks. */
  target?: string;
}

/**
 * Lists the project tree as a checkpoint sees it: regular files, symlinks (not followed) and
 * really empty directories, minus `.git`, `.agent/rewind` and what .gitignore files ignore. Only
 * lstat, no file is read. Synchronous on purpose: one lstat per file through the thread pool costs
 * several times more than the call itself; callers that must not block run it in a worker.
 */
export async function walkTree(root: string): Promise<WalkEntry[]> {
  return walkTreeSync(root);
}

export function walkTreeSync(root: string): WalkEntry[] {
  const out: WalkEntry[] = [];
  const stack = new IgnoreStack();
  // Returns how many entries the directory holds on disk: only a really empty one is recorded.
  const visit = (rel: string): number => {
    const abs = rel ? join(root, rel) : root;
    let names: Dirent[];
    try {
      names = readdirSync(abs, { withFileTypes: true });
    } catch {
      return 0;
    }
    const gi = names.some((d) => d.name === '.gitignore' && d.isFile());
    if (gi) {
      let text = '';
      try {
        text = readFileSync(join(abs, '.gitignore'), 'utf8');
      } catch {
        // unreadable: no rules from it
      }
      stack.push(rel, text);
    }
    for (const d of names) {
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const isDir = d.isDirectory();
      if (stack.ignores(childRel, isDir)) continue;
      if (isDir) {
        const n = visit(childRel);
        if (n === 0) {
          try {
            const st = lstatSync(join(root, childRel));
            out.push({ path: childRel, kind: 'dir', size: 0, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ino: st.ino });
          } catch {
            // gone meanwhile
          }
        }
        continue;
      }
      let st;
      try {
        st = lstatSync(join(root, childRel));
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) {
        let target = '';
        try {
          target = readlinkSync(join(root, childRel));
        } catch {
          // unreadable link: recorded with an empty target
        }
        out.push({ path: childRel, kind: 'symlink', size: 0, mode: 0o777, mtimeMs: st.mtimeMs, ino: st.ino, target });
      } else if (st.isFile()) {
        out.push({ path: childRel, kind: 'file', size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ino: st.ino });
      }
    }
    if (gi) stack.pop(rel);
    return names.length;
  };
  visit('');
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}
