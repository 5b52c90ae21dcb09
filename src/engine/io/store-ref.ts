import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';

/**
 * A session kept inside an agent's database has no file of its own: it is named
 * `<database>#<session id>` (agents/sqlite-sessions.ts). What stands on disk for such a path is
 * the database; for any other path, the path itself.
 */
export function storeFileOf(path: string): string | null {
  const i = path.lastIndexOf('#');
  return i > 0 && /^#[A-Za-z0-9_-]+$/.test(path.slice(i)) ? path.slice(0, i) : null;
}

/** The stats of a session path: its own file, else the database holding it. */
export async function statSessionPath(path: string): Promise<Stats | null> {
  const st = await stat(path).catch(() => null);
  if (st) return st;
  const db = storeFileOf(path);
  return db ? stat(db).catch(() => null) : null;
}
