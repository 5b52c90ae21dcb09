import { existsSync } from 'node:fs';
import { chmod, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, relative, resolve } from 'node:path';

/**
 * Permission checks are only seen by a user who is not root: as root, a test runs the CLI as
 * `nobody` (setpriv). Null when it cannot (not root: the CLI runs as the test's own user).
 */
export const NOBODY: string[] | null = process.getuid?.() === 0 && existsSync('/usr/bin/setpriv') ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : null;
/** Root without setpriv: the permission tests cannot run. */
export const CANNOT_DROP_ROOT = process.getuid?.() === 0 && !NOBODY;

/**
 * Lets `nobody` reach `dir`: a fresh run's TMPDIR (mktemp -d, mode 700) is closed to other users.
 * Adds only the search bit (o+x, nothing listable or readable) to the folders between TMPDIR and
 * `dir`, TMPDIR included, and returns what puts their modes back.
 */
export async function reachableByNobody(dir: string): Promise<() => Promise<void>> {
  const top = resolve(tmpdir());
  const changed: { path: string; mode: number }[] = [];
  for (let p = resolve(dir); ; p = dirname(p)) {
    const rel = relative(top, p);
    if (rel.startsWith('..') || resolve(top, rel) !== p) break;
    const st = await stat(p);
    if (!(st.mode & 0o001)) {
      await chmod(p, (st.mode & 0o7777) | 0o001);
      changed.push({ path: p, mode: st.mode & 0o7777 });
    }
    if (p === top) break;
  }
  return async () => {
    for (const c of changed) await chmod(c.path, c.mode).catch(() => undefined);
  };
}
