import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, statSync, type Dirent, type Stats } from 'node:fs';
import { IgnoreStack } from './ignore-rules.js';

/** See stat-cache.ts (kept here too: the walk must not load the cache's code). */
const RACY_MS = 2_000;

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
  /** What the walk cannot take (a folder it cannot list, a name that is not UTF-8): named, never taken as absent. */
  skip(rel: string, what: string): void;
}

/** Why a path was skipped, in words (shown in checkpoints --json and the restore preview). */
export const UNREADABLE_FOLDER = 'a folder that cannot be read';
export const NOT_UTF8_NAME = 'a name that is not UTF-8, which Rewind cannot copy';

/**
 * One directory as a walk listed it (git's "untracked cache", in effect): its lstat when listed,
 * how many names it held on disk, its .gitignore's lstat, and the names left once ignored ones are
 * taken out (`name/` for a directory), sorted. A directory gets a new name, loses one or has one
 * renamed only by a write to the directory itself, which changes its mtime and ctime: while they
 * are what they were (and out of the racy window), the list stands and the next walk neither lists
 * it again nor asks the ignore rules about its names. A file's content is never taken from here:
 * every file listed is still lstat-ed.
 */
export interface DirListing {
  mtime: number;
  ctime: number;
  ino: number;
  names: number;
  /** The .gitignore's [mtime, ctime, size, ino]; null when the directory has none. */
  gi: readonly number[] | null;
  keys: readonly string[];
}

/** The listings of an earlier walk, and when it started. */
export interface Listings {
  get(rel: string): DirListing | undefined;
  written: number;
}

/** What a walk did, besides the entries: the listings to keep, how many directories were listed anew. */
export interface WalkResult {
  listings: Map<string, DirListing>;
  listed: number;
  reused: number;
}

const NO_THROW = { throwIfNoEntry: false } as const;
/** Directories sort as `name/`: a walk in this order lists paths in plain string order (git's index order). */
const byKey = (a: [string, Dirent], b: [string, Dirent]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
const giStat = (st: Stats): number[] => [st.mtimeMs, st.ctimeMs, st.size, st.ino];
const sameGi = (a: readonly number[] | null | undefined, b: readonly number[] | null) => (!a && !b) || (!!a && !!b && a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3]);

/**
 * Walks the project tree as a checkpoint sees it: regular files, symlinks (never followed, a link
 * to a directory included), specials (FIFOs, sockets, devices: listed, never opened) and really
 * empty directories, minus `.git`, `.agent/rewind` and what .gitignore files ignore. Only lstat,
 * no file is read. Synchronous on purpose: one lstat per file through the thread pool costs
 * several times more than the call itself; callers that must not block run it in a worker.
 *
 * With `prev` (the listings of an earlier walk, see DirListing), a directory whose lstat is what
 * it was when listed, under ignore rules that are what they were, is not listed again.
 *
 * Entries come in string order of their paths except an empty directory, which comes where
 * `dir/` would (before `dir.txt` in string order, after it here), or a name whose kind changed
 * while the walk ran: callers that need strict order check it (inOrder) and sort when it is off.
 */
export function walkInto(root: string, sink: WalkSink, prev: Listings | null = null): WalkResult {
  const stack = new IgnoreStack();
  const base = root.endsWith('/') || root.endsWith('\\') ? root : `${root}/`;
  const listings = new Map<string, DirListing>();
  const racyBefore = prev ? prev.written - RACY_MS : 0;
  let listed = 0;
  let reused = 0;

  /** The listing of `rel` from the earlier walk, with its names' lstats, if it still stands. */
  const stillListed = (rel: string, abs: string, st: Stats): { l: DirListing; stats: (Stats | undefined)[]; paths: string[]; giSt: Stats | null } | null => {
    const l = prev?.get(rel);
    if (!l || l.ino !== st.ino || l.mtime !== st.mtimeMs || l.ctime !== st.ctimeMs || !(st.mtimeMs < racyBefore)) return null;
    let giSt: Stats | null = null;
    if (l.gi) {
      giSt = lstatSync(`${abs}/.gitignore`, NO_THROW) ?? null;
      if (!giSt?.isFile() || !sameGi(l.gi, giStat(giSt)) || !(giSt.mtimeMs < racyBefore)) return null;
    }
    // Every name is lstat-ed anyway (for its content): one whose kind is not what the list says
    // means the directory changed under an unchanged stat; it is listed again.
    const stats: (Stats | undefined)[] = new Array(l.keys.length);
    const paths: string[] = new Array(l.keys.length);
    for (let i = 0; i < l.keys.length; i++) {
      const k = l.keys[i]!;
      const dir = k.charCodeAt(k.length - 1) === 47;
      const p = (paths[i] = `${abs}/${dir ? k.slice(0, -1) : k}`);
      const c = lstatSync(p, NO_THROW);
      if (!c || c.isDirectory() !== dir) return null;
      stats[i] = c;
    }
    return { l, stats, paths, giSt };
  };

  // Returns how many entries the directory holds on disk: only a really empty one is recorded; -1: it cannot be listed.
  const visit = (rel: string, abs: string, st: Stats, rulesSame: boolean): number => {
    const kept = rulesSame ? stillListed(rel, abs, st) : null;
    let keys: readonly string[];
    let stats: (Stats | undefined)[] | null = null;
    let absOf: string[] | null = null;
    let names: number;
    let gi: number[] | null = null;
    let childRulesSame = rulesSame;
    if (kept) {
      reused++;
      keys = kept.l.keys;
      stats = kept.stats;
      absOf = kept.paths;
      names = kept.l.names;
      gi = kept.giSt ? giStat(kept.giSt) : null;
      if (gi) stack.push(rel, readRules(`${abs}/.gitignore`));
    } else {
      let dirents: Dirent[];
      try {
        dirents = readdirSync(abs, { withFileTypes: true });
      } catch (e) {
        // A folder that cannot be listed is not an empty one: named as skipped (left alone on restore).
        const code = (e as NodeJS.ErrnoException).code;
        return code === 'EACCES' || code === 'EPERM' ? -1 : 0;
      }
      listed++;
      names = dirents.length;
      const keyed: [string, Dirent][] = new Array(dirents.length);
      let hasGi = false;
      for (let i = 0; i < dirents.length; i++) {
        const d = dirents[i]!;
        if (d.name === '.gitignore' && d.isFile()) hasGi = true;
        keyed[i] = [d.isDirectory() ? `${d.name}/` : d.name, d];
      }
      keyed.sort(byKey);
      if (hasGi) {
        // Its stat before its text: a write after this read changes the stat the next walk compares.
        const g = lstatSync(`${abs}/.gitignore`, NO_THROW);
        gi = g ? giStat(g) : [Number.NaN, Number.NaN, Number.NaN, Number.NaN];
        stack.push(rel, readRules(`${abs}/.gitignore`));
      }
      // Rules that changed here change what is ignored below: no listing under it is taken as it was.
      const before = prev?.get(rel);
      childRulesSame = rulesSame && !!before && sameGi(before.gi, gi) && !!gi === !!before.gi && (!gi || gi[0]! < racyBefore);
      const out: string[] = [];
      for (const [key, d] of keyed) {
        const childRel = rel ? `${rel}/${d.name}` : d.name;
        if (!stack.ignores(childRel, d.isDirectory())) out.push(key);
      }
      keys = out;
    }
    listings.set(rel, { mtime: st.mtimeMs, ctime: st.ctimeMs, ino: st.ino, names, gi, keys });
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      // Dirent types come from readdir and are never a link's target: a symlinked directory is a link here.
      const isDir = key.charCodeAt(key.length - 1) === 47;
      const name = isDir ? key.slice(0, -1) : key;
      const childRel = rel ? `${rel}/${name}` : name;
      const childAbs = absOf ? absOf[i]! : rel ? `${abs}/${name}` : `${base}${name}`;
      const cst = stats ? stats[i] : lstatSync(childAbs, NO_THROW);
      if (!cst) {
        // A name that is not UTF-8 comes back with U+FFFD for its bytes: no file has that name, so it
        // cannot be read or put back. Named (skipped), never silently left out. Else gone meanwhile.
        if (name.includes('\uFFFD') && !existsSync(childAbs)) sink.skip(childRel, NOT_UTF8_NAME);
        continue;
      }
      if (cst.isDirectory()) {
        // Listed as a directory, or one by now (then in its place in path order after a sort).
        const n = visit(childRel, childAbs, cst, childRulesSame && isDir);
        if (n === 0) sink.emptyDir(childRel, cst);
        else if (n === -1) sink.skip(childRel, UNREADABLE_FOLDER);
        continue;
      }
      sink.entry(childRel, childAbs, cst);
    }
    if (gi) stack.pop(rel);
    return names;
  };
  let rootSt: Stats | undefined;
  try {
    // The project folder itself may be reached through a link (the path the user gave): followed.
    rootSt = statSync(root);
  } catch {
    return { listings, listed, reused };
  }
  if (rootSt.isDirectory()) visit('', root, rootSt, !!prev);
  return { listings, listed, reused };
}

function readRules(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // unreadable: no rules from it
  }
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
    skip: (rel, what) => out.push({ path: rel, kind: 'special', size: 0, mode: 0, mtimeMs: 0, ino: 0, what }),
  });
  if (!inOrder(out.map((e) => e.path))) out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}
