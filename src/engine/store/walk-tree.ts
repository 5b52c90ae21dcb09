import { lstatSync, readFileSync, readdirSync, readlinkSync, type Dirent, type Stats } from 'node:fs';
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

/** A link's target, '' when it cannot be read (recorded with an empty target). */
export function readLinkTarget(abs: string): string {
  try {
    return readlinkSync(abs);
  } catch {
    return '';
  }
}

/**
 * What a walk hands on, entry by entry, in path order (see walkInto): the lstat of each regular
 * file, link, special and really empty directory. No object is made per file: a checkpoint compares
 * each stat with its cache as it comes.
 */
export interface WalkSink {
  /** A regular file, a link or a special (FIFO, socket, device): `st` is its lstat. */
  entry(rel: string, abs: string, st: Stats): void;
  /** A directory with nothing in it on disk. */
  emptyDir(rel: string, st: Stats): void;
}

const NO_THROW = { throwIfNoEntry: false } as const;
/** Directories sort as `name/`: a walk in this order lists paths in plain string order (git's index order). */
const byKey = (a: [string, Dirent], b: [string, Dirent]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * Walks the project tree as a checkpoint sees it: regular files, symlinks (never followed, a link
 * to a directory included), specials (FIFOs, sockets, devices: listed, never opened) and really
 * empty directories, minus `.git`, `.agent/rewind` and what .gitignore files ignore. Only lstat,
 * no file is read. Synchronous on purpose: one lstat per file through the thread pool costs
 * several times more than the call itself; callers that must not block run it in a worker.
 *
 * Entries come in string order of their paths except an empty directory, which comes where
 * `dir/` would (before `dir.txt` in string order, after it here): callers that need strict order
 * check it (inOrder) and sort when it is off.
 */
export function walkInto(root: string, sink: WalkSink): void {
  const stack = new IgnoreStack();
  const base = root.endsWith('/') || root.endsWith('\\') ? root : `${root}/`;
  // Returns how many entries the directory holds on disk: only a really empty one is recorded.
  const visit = (rel: string, abs: string): number => {
    let names: Dirent[];
    try {
      names = readdirSync(abs, { withFileTypes: true });
    } catch {
      return 0;
    }
    let gi = false;
    const keyed: [string, Dirent][] = new Array(names.length);
    for (let i = 0; i < names.length; i++) {
      const d = names[i]!;
      if (d.name === '.gitignore' && d.isFile()) gi = true;
      keyed[i] = [d.isDirectory() ? `${d.name}/` : d.name, d];
    }
    keyed.sort(byKey);
    if (gi) {
      let text = '';
      try {
        text = readFileSync(`${abs}/.gitignore`, 'utf8');
      } catch {
        // unreadable: no rules from it
      }
      stack.push(rel, text);
    }
    for (const [, d] of keyed) {
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      const childAbs = rel ? `${abs}/${d.name}` : `${base}${d.name}`;
      // Dirent types come from readdir and are never a link's target: a symlinked directory is a link here.
      const isDir = d.isDirectory();
      if (stack.ignores(childRel, isDir)) continue;
      if (isDir) {
        if (visit(childRel, childAbs) === 0) {
          const st = lstatSync(childAbs, NO_THROW);
          if (st?.isDirectory()) sink.emptyDir(childRel, st);
        }
        continue;
      }
      const st = lstatSync(childAbs, NO_THROW);
      // Gone meanwhile, or a directory by now (it was not one when listed): passed over, as before.
      if (!st || st.isDirectory()) continue;
      sink.entry(childRel, childAbs, st);
    }
    if (gi) stack.pop(rel);
    return names.length;
  };
  visit('', root);
}

/** Whether paths are in strict string order (the order manifests and the stat cache keep). */
export function inOrder(paths: readonly string[]): boolean {
  for (let i = 1; i < paths.length; i++) if (!(paths[i - 1]! < paths[i]!)) return false;
  return true;
}

/** The walk as a list of entries, sorted by path (see walkInto). */
export async function walkTree(root: string): Promise<WalkEntry[]> {
  return walkTreeSync(root);
}

export function walkTreeSync(root: string): WalkEntry[] {
  const out: WalkEntry[] = [];
  walkInto(root, {
    entry: (rel, abs, st) => {
      const e = walkEntryOf(rel, st, () => readLinkTarget(abs));
      if (e) out.push(e);
    },
    emptyDir: (rel, st) => out.push({ path: rel, kind: 'dir', size: 0, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino }),
  });
  if (!inOrder(out.map((e) => e.path))) out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}
