import { lstat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { RewindError } from '../errors.js';
import { ALWAYS_EXCLUDED } from './ignore-rules.js';

/** A manifest path we are willing to write: relative, no `..`, no empty or odd segments. */
export function checkRelPath(rel: string): void {
  const bad = (why: string) => new RewindError('UNSAFE_PATH', `refusing unsafe path in checkpoint: "${rel}" (${why})`);
  if (!rel || rel.includes('\0')) throw bad('empty or NUL');
  if (isAbsolute(rel) || rel.startsWith('/') || /^[a-zA-Z]:/.test(rel) || rel.startsWith('\\')) throw bad('absolute');
  if (rel.includes('\\')) throw bad('backslash');
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.' || seg === '..') throw bad('".." or empty segment');
  }
  // Git's data and Rewind's store are never in a checkpoint (the walk leaves them out): a manifest
  // naming one was written by someone else, to plant `.git/hooks/pre-commit` or rewrite the journal.
  const folded = process.platform === 'darwin' || process.platform === 'win32' ? rel.toLowerCase().replace(/[. ]+(?=\/|$)/g, '') : rel;
  if (ALWAYS_EXCLUDED.some((x) => folded === x || folded.startsWith(`${x}/`))) throw bad('inside .git or .agent/rewind, which checkpoints never hold');
}

/**
 * Fails if any directory between `root` and `rel` is a symlink or not a directory: writing there
 * could land outside the project.
 */
export async function checkParents(root: string, rel: string): Promise<void> {
  const parts = rel.split('/');
  let cur = root;
  for (let i = 0; i < parts.length - 1; i++) {
    cur = join(cur, parts[i]!);
    const st = await lstat(cur).catch(() => null);
    if (!st) return; // created later, as a real directory
    if (st.isSymbolicLink()) throw new RewindError('UNSAFE_PATH', `refusing to write through a symlinked directory: ${relative(root, cur).split(sep).join('/')}`);
    if (!st.isDirectory()) throw new RewindError('UNSAFE_PATH', `${relative(root, cur).split(sep).join('/')} is a file where a directory is needed`);
  }
}

/** Whether a folder between `root` and `rel` is a link (reading through it would read outside the project). */
export async function linkOnTheWay(root: string, rel: string): Promise<boolean> {
  return checkParents(root, rel).then(
    () => false,
    () => true,
  );
}
