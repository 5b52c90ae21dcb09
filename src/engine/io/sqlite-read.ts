import { readFile, stat } from 'node:fs/promises';
import type { Database as Db } from 'node-sqlite3-wasm';
import { RewindError } from '../errors.js';

/**
 * Reads a SQLite database another program may be writing (an agent's session store), never
 * writing to it. node-sqlite3-wasm: SQLite compiled to WebAssembly with a VFS on Node's fs, so it
 * installs with plain `npm ci` everywhere (no native build, no prebuilt download) and reads pages
 * on demand (docs/agents.md has the measurements against sql.js, which loads the whole file).
 *
 * The stores run in WAL mode. That VFS has no shared memory, so the connection is read-only with
 * `locking_mode=exclusive`: SQLite then builds the WAL index in its own heap and reads the
 * committed frames of `<db>-wal` (the newest transactions) with the main file, and being read-only
 * it never checkpoints, truncates or deletes the agent's WAL. It takes no lock the agent would see,
 * so a checkpoint or a WAL restart by the agent during the read could mix versions: the WAL's
 * header and size are compared before and after, and the read is made again when they moved.
 */

export type Row = Record<string, unknown>;

export interface SqliteSnapshot {
  /** Rows of a query; `params` bind `?` in order. */
  all(sql: string, params?: (string | number | null)[]): Row[];
  close(): void;
  /** Bytes of the main file and its WAL when opened. */
  size: number;
}

async function walMark(path: string): Promise<string> {
  const st = await stat(`${path}-wal`).catch(() => null);
  if (!st) return 'none';
  // The header's salts change when the agent restarts the WAL; the size when it appends.
  const head = await readFile(`${path}-wal`).then((b) => b.subarray(0, 32).toString('hex')).catch(() => '');
  return `${st.size}:${head}`;
}

/** A read-only view of the database; `read` runs the queries and is repeated when the agent moved the WAL under it. */
export async function readSqliteWith<T>(path: string, read: (db: SqliteSnapshot) => T): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const before = await walMark(path);
    const db = await openSqlite(path);
    let out: T;
    try {
      out = read(db);
    } finally {
      db.close();
    }
    if ((await walMark(path)) === before) return out;
    if (attempt === 4) throw new RewindError('TRANSCRIPT_CHANGED', `the database kept changing while read: ${path}`);
  }
}

/** Opens the database read-only (see above); the caller closes it. */
export async function openSqlite(path: string): Promise<SqliteSnapshot> {
  const st = await stat(path).catch(() => null);
  if (!st?.isFile()) throw new RewindError('NOT_FOUND', `database not found: ${path}`);
  const wal = await stat(`${path}-wal`).catch(() => null);
  const { Database } = (await import('node-sqlite3-wasm')).default;
  let handle: Db;
  try {
    handle = new Database(path, { readOnly: true, fileMustExist: true });
  } catch (e) {
    throw new RewindError('UNREADABLE', `cannot open the database ${path}: ${(e as Error).message}`);
  }
  try {
    handle.exec('pragma locking_mode=exclusive');
    handle.all('select count(*) from sqlite_master');
  } catch (e) {
    handle.close();
    throw new RewindError('INVALID_TRANSCRIPT', `not a readable SQLite database: ${path} (${(e as Error).message})`);
  }
  return {
    size: st.size + (wal?.size ?? 0),
    all: (sql, params = []) => handle.all(sql, params) as Row[],
    close: () => handle.close(),
  };
}

