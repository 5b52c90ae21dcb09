import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

export const STORE_DIR = join('.agent', 'rewind');

export function storeDir(projectRoot: string): string {
  return join(projectRoot, STORE_DIR);
}

/** Nearest ancestor of `from` (itself included) that has `.agent/rewind/`. */
export async function findProjectRoot(from: string): Promise<string | null> {
  let dir = resolve(from);
  for (;;) {
    const st = await stat(join(dir, STORE_DIR)).catch(() => null);
    if (st?.isDirectory()) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The folders Rewind keeps inside its store: a cloned project may ship any of them as a link. */
const STORE_SUBDIRS = ['objects', 'checkpoints', 'transcript-backup', 'undone', 'pending'];

/**
 * Creates `.agent/rewind/` (user-only) with a `.gitignore` that keeps all of it out of git. A
 * project that ships `.agent`, `.agent/rewind` or one of the store's folders as a link (or as a
 * file) is refused in one line (`UNSAFE_PATH`) before anything is written there.
 */
export async function ensureStore(projectRoot: string): Promise<string> {
  const dir = storeDir(projectRoot);
  // The project folder itself is never created: a journal for a folder that is gone has no home.
  if (!(await stat(projectRoot).catch(() => null))?.isDirectory()) {
    const { RewindError } = await import('./errors.js');
    throw new RewindError('NOT_FOUND', `project folder does not exist: ${projectRoot} (pass --project DIR)`);
  }
  const { createOwnFileIfMissing, ensureOwnDir } = await import('./io/own-file.js');
  await ensureOwnDir(projectRoot, STORE_DIR);
  for (const sub of STORE_SUBDIRS) await ensureOwnDir(dir, sub, { create: false });
  // Created only where nothing is: a link shipped as the .gitignore is neither followed nor replaced.
  await createOwnFileIfMissing(join(dir, '.gitignore'), '*\n', 0o644);
  return dir;
}

/**
 * Where a rewind keeps its backup and journal when no project was given: the session's recorded
 * folder, only when it exists here and is already a Rewind project (has `.agent/rewind/`) or the
 * user works inside it (`here`, the CLI's folder: where `undo` will look). A transcript can name any
 * folder as its cwd: one it merely names never gets `.agent/rewind/` created in it.
 */
export async function sessionJournalRoot(cwd: string | null, here?: string | null): Promise<{ root: string | null; why: string | null }> {
  if (!cwd || !isAbsolute(cwd)) return { root: null, why: null };
  if (!(await stat(cwd).catch(() => null))?.isDirectory()) return { root: null, why: `the session's folder ${cwd} no longer exists` };
  if ((await stat(storeDir(cwd)).catch(() => null))?.isDirectory()) return { root: cwd, why: null };
  if (here) {
    const [c, h] = await Promise.all([realpath(cwd).catch(() => resolve(cwd)), realpath(resolve(here)).catch(() => resolve(here))]);
    const rel = relative(c, h);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return { root: cwd, why: null };
  }
  return { root: null, why: `the session's folder ${cwd} is not a Rewind project and you are not working in it` };
}
