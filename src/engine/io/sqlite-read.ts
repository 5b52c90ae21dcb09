import { readFile, stat } from 'node:fs/promises';
import { RewindError } from '../errors.js';
import { foldWal } from './sqlite-wal.js';
import type { SqlJsStatic, Database } from 'sql.js';

/**
 * Reads a SQLite database another program may be writing, without taking its locks: the main file
 * and its `-wal` are read, the WAL's committed frames folded in (sqlite-wal.ts), and the result
 * opened in memory with sql.js (WebAssembly: installs with plain `npm ci` everywhere, no native
 * build, no prebuilt download; docs/agents.md has the measurements behind the choice). A checkpoint
 * between the two reads could mix versions, so the WAL is read again after the main file and the
 * whole read retried when it changed.
 */

export type Row = Record<string, unknown>;

export interface SqliteSnapshot {
  /** Rows of a query; `params` bind `?` in order. */
  all(sql: string, params?: (string | number | null)[]): Row[];
  close(): void;
  /** Bytes of the main file and its WAL when read. */
  size: number;
}

let engine: Promise<SqlJsStatic> | null = null;

/** Loaded on first use: the WebAssembly module stays off the CLI's hot path. */
function sqlJs(): Promise<SqlJsStatic> {
  engine ??= import('sql.js').then((m) => m.default());
  return engine;
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

const sameBytes = (a: Buffer | null, b: Buffer | null) => (a === null ? b === null : b !== null && a.equals(b));

/** The database as a reader sees it now (main file + committed WAL), opened in memory. */
export async function readSqlite(path: string): Promise<SqliteSnapshot> {
  const st = await stat(path).catch(() => null);
  if (!st?.isFile()) throw new RewindError('NOT_FOUND', `database not found: ${path}`);
  let db: Buffer | null = null;
  let wal: Buffer | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    wal = await readOrNull(`${path}-wal`);
    db = await readFile(path);
    if (sameBytes(wal, await readOrNull(`${path}-wal`))) break;
    if (attempt === 4) throw new RewindError('TRANSCRIPT_CHANGED', `the database kept changing while read: ${path}`);
  }
  const SQL = await sqlJs();
  let handle: Database;
  try {
    handle = new SQL.Database(foldWal(db!, wal));
    handle.exec('select count(*) from sqlite_master');
  } catch (e) {
    throw new RewindError('INVALID_TRANSCRIPT', `not a readable SQLite database: ${path} (${(e as Error).message})`);
  }
  return {
    size: db!.length + (wal?.length ?? 0),
    all(sql, params = []) {
      const st = handle.prepare(sql);
      try {
        st.bind(params);
        const out: Row[] = [];
        while (st.step()) out.push(st.getAsObject() as Row);
        return out;
      } finally {
        st.free();
      }
    },
    close: () => handle.close(),
  };
}
