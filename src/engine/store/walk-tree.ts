import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import { IgnoreStack } from './ignore-rules.js';

export interface WalkEntry {
  path: string;
  /** 'special': a FIFO, socket or device: recorded as such, never opened (opening a FIFO blocks). */
  kind: 'file' | 'symlink' | 'dir' | 'special';
  size: number;
  mode: number;
  mtimeMs: number;
  /** The inode's change time: a write that keeps size and mtime (touch -m, a restore) still changes it. */
  ctimeMs?: number;
  ino: number;
  /** For symlinks. */
  target?: string;
  /** For specials: what it is, in words ("a FIFO"). */
  what?: string;
}

/** What a non-regular, non-link, non-directory entry is, in words. */
export function specialKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** One lstat as a walk entry (never follows a link); null for a directory. */
export function walkEntryOf(rel: string, st: Stats, readTarget: () => string): WalkEntry | null {
  const at = { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
  if (st.isSymbolicLink()) return { path: rel, kind: 'symlink', size: 0, mode: 0o777, ...at, target: readTarget() };
  if (st.isFile()) return { path: rel, kind: 'file', size: st.size, mode: st.mode & 0o777, ...at };
  if (st.isDirectory()) return null;
  return { path: rel, kind: 'special', size: 0, mode: st.mode & 0o777, ...at, what: specialKind(st) };
}

/**
 * Lists the project tree as a checkpoint sees it: regular files, symlinks (never followed, a link
 * to a directory included), specials (FIFOs, sockets, devices: listed, never opened) and really
 * empty directories, minus `.git`, `.agent/rewind` and what .gitignore files ignore. Only lstat,
 * no file is read. Synchronous on purpose: one lstat per file through the thread pool costs
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
    } catch (e) {
      // A folder that cannot be listed is not an empty one: recorded as unreadable (named, left alone on restore).
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'EACCES' || code === 'EPERM' ? -1 : 0;
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
      // A name that is not UTF-8 comes back with U+FFFD for its bytes: no file has that name, so it
      // cannot be read or put back. Named (skipped), never silently left out.
      if (d.name.includes('\uFFFD') && !existsSync(join(root, childRel))) {
        out.push({ path: childRel, kind: 'special', size: 0, mode: 0, mtimeMs: 0, ino: 0, what: 'a name that is not UTF-8, which Rewind cannot copy' });
        continue;
      }
      // Dirent types come from readdir and are never a link's target: a symlinked directory is a link here.
      const isDir = d.isDirectory();
      if (stack.ignores(childRel, isDir)) continue;
      if (isDir) {
        const n = visit(childRel);
        if (n === -1) {
          try {
            const st = lstatSync(join(root, childRel));
            out.push({ path: childRel, kind: 'special', size: 0, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, what: 'a folder that cannot be read' });
          } catch {
            // gone meanwhile
          }
        } else if (n === 0) {
          try {
            const st = lstatSync(join(root, childRel));
            if (st.isDirectory()) out.push({ path: childRel, kind: 'dir', size: 0, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
          } catch {
            // gone meanwhile
          }
        }
        continue;
      }
      let st: Stats;
      try {
        st = lstatSync(join(root, childRel));
      } catch {
        continue;
      }
      const e = walkEntryOf(childRel, st, () => {
        try {
          return readlinkSync(join(root, childRel));
        } catch {
          return ''; // unreadable link: recorded with an empty target
        }
      });
      if (e) out.push(e);
    }
    if (gi) stack.pop(rel);
    return names.length;
  };
  visit('');
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}
