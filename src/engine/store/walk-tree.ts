import type { Dirent } from 'node:fs';
import { lstat, readFile, readdir, readlink } from 'node:fs/promises';
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

const POSIX = (p: string) => p.split('\\').join('/');

/**
 * Lists the project tree as a checkpoint sees it: regular files, symlinks (not followed) and
 * empty directories, minus `.git`, `.agent/rewind` and what .gitignore files ignore. Only lstat:
 * no file is read here.
 */
export async function walkTree(root: string): Promise<WalkEntry[]> {
  const out: WalkEntry[] = [];
  const stack = new IgnoreStack();
  // Returns how many entries the directory holds on disk: only a really empty one is recorded.
  const visit = async (rel: string): Promise<number> => {
    const abs = rel ? join(root, rel) : root;
    let names: Dirent[];
    try {
      names = await readdir(abs, { withFileTypes: true });
    } catch {
      return 0;
    }
    const gi = names.find((d) => d.name === '.gitignore' && d.isFile());
    if (gi) stack.push(rel, await readFile(join(abs, '.gitignore'), 'utf8').catch(() => ''));
    const files: Promise<void>[] = [];
    const dirs: string[] = [];
    for (const d of names) {
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const isDir = d.isDirectory();
      if (stack.ignores(childRel, isDir)) continue;
      if (isDir) {
        dirs.push(childRel);
        continue;
      }
      files.push(
        (async () => {
          const st = await lstat(join(root, childRel)).catch(() => null);
          if (!st) return;
          if (st.isSymbolicLink()) {
            const target = await readlink(join(root, childRel)).catch(() => '');
            out.push({ path: POSIX(childRel), kind: 'symlink', size: 0, mode: 0o777, mtimeMs: st.mtimeMs, ino: st.ino, target });
          } else if (st.isFile()) {
            out.push({ path: POSIX(childRel), kind: 'file', size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ino: st.ino });
          }
        })(),
      );
    }
    await Promise.all(files);
    for (const d of dirs) {
      const n = await visit(d);
      if (n === 0) {
        const st = await lstat(join(root, d)).catch(() => null);
        if (st) out.push({ path: POSIX(d), kind: 'dir', size: 0, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ino: st.ino });
      }
    }
    if (gi) stack.pop(rel);
    return names.length;
  };
  await visit('');
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}
