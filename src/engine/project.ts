import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

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

/** Creates `.agent/rewind/` (user-only) with a `.gitignore` that keeps all of it out of git. */
export async function ensureStore(projectRoot: string): Promise<string> {
  const dir = storeDir(projectRoot);
  // The project folder itself is never created: a journal for a folder that is gone has no home.
  if (!(await stat(projectRoot).catch(() => null))?.isDirectory()) {
    const { RewindError } = await import('./errors.js');
    throw new RewindError('NOT_FOUND', `project folder does not exist: ${projectRoot} (pass --project DIR)`);
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const gi = join(dir, '.gitignore');
  const exists = await stat(gi).catch(() => null);
  if (!exists) await writeFile(gi, '*\n', { mode: 0o644 });
  return dir;
}
