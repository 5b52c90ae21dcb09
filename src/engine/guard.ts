import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { RewindError } from './errors.js';

/**
 * Paths and ids that come from files we did not write ourselves this run (a journal cloned with a
 * repository, a transcript's own fields, a request) are checked here before any use.
 */

/** A session or record id: a uuid, or an agent's own id grammar (letters, digits, `-`, `_`). */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function isSafeId(id: unknown): id is string {
  return typeof id === 'string' && SAFE_ID.test(id);
}

/** Lexically inside `root` (or `root` itself). */
export function isInside(root: string, p: string): boolean {
  if (!isAbsolute(p)) return false;
  const rel = relative(resolve(root), resolve(p));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Follows symlinks of the nearest existing ancestor, so a symlinked directory cannot lead outside. */
export async function realish(p: string): Promise<string> {
  const tail: string[] = [];
  let cur = resolve(p);
  for (;;) {
    try {
      return join(await realpath(cur), ...tail.reverse());
    } catch {
      const parent = dirname(cur);
      if (parent === cur) return resolve(p);
      tail.push(basename(cur));
      cur = parent;
    }
  }
}

/** True when `p` is inside one of `roots`, lexically and once symlinks are resolved. */
export async function insideAny(roots: string[], p: string): Promise<boolean> {
  for (const root of roots) {
    if (!isInside(root, p)) continue;
    if (isInside(await realish(root), await realish(p))) return true;
  }
  return false;
}

/** Throws a one-line UNSAFE_PATH error unless `p` is inside one of `roots`. */
export async function requireInside(roots: string[], p: unknown, what: string, hint?: string): Promise<string> {
  if (typeof p !== 'string' || !p || p.includes('\0') || !isAbsolute(p) || !(await insideAny(roots, p))) {
    throw new RewindError('UNSAFE_PATH', `refusing ${what} outside the allowed folders: ${String(p)} (allowed: ${roots.join(', ')}${hint ? `; ${hint}` : ''}); nothing was written`);
  }
  return p;
}

export function requireId(id: unknown, what: string): string {
  if (!isSafeId(id)) throw new RewindError('UNSAFE_PATH', `refusing ${what} that is not a valid id: ${JSON.stringify(id)}; nothing was written`);
  return id;
}
