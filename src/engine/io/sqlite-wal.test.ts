import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { foldWal, walPages } from './sqlite-wal.js';
import { readSqlite } from './sqlite-read.js';

// Written by SQLite itself (the sqlite3 shell, `journal_mode=wal`, auto-checkpoint off) and copied
// while the shell still held the database open: `t` = 1 in the main file; 2, the table `u` and
// 11, 12 only in the WAL (three commits).
const dir = join(import.meta.dirname, '../../../test/fixtures/sqlite-wal');

async function rows(bytes: Buffer): Promise<{ t: number[]; u: string[] | null }> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(bytes);
  try {
    const t = db.exec('select x from t order by x')[0]?.values.map((v) => Number(v[0])) ?? [];
    const hasU = db.exec("select name from sqlite_master where name = 'u'").length > 0;
    return { t, u: hasU ? (db.exec('select y from u')[0]?.values.map((v) => String(v[0])) ?? []) : null };
  } finally {
    db.close();
  }
}

describe('reading a database in WAL mode', () => {
  it('the main file alone misses what is only in the WAL (why the WAL is folded in)', async () => {
    expect(await rows(foldWal(await readFile(join(dir, 'live.db')), null))).toEqual({ t: [1], u: null });
  });

  it('the WAL folded in: every committed transaction is there', async () => {
    const db = await readFile(join(dir, 'live.db'));
    const wal = await readFile(join(dir, 'live.db-wal'));
    expect(await rows(foldWal(db, wal))).toEqual({ t: [1, 2, 11, 12], u: ['in wal'] });
    const s = await readSqlite(join(dir, 'live.db'));
    try {
      expect(s.all('select count(*) as n from t')).toEqual([{ n: 4 }]);
    } finally {
      s.close();
    }
  });

  it('a torn frame at the end is left out, and so is the transaction whose frame fails its checksum', async () => {
    const db = await readFile(join(dir, 'live.db'));
    const wal = await readFile(join(dir, 'live.db-wal'));
    const w = walPages(wal)!;
    // Half a frame more, as a writer cut off mid-append leaves it.
    expect(await rows(foldWal(db, Buffer.concat([wal, Buffer.alloc(w.pageSize / 2, 7)])))).toEqual({ t: [1, 2, 11, 12], u: ['in wal'] });
    // A byte of the last frame flipped: its checksum fails, the last commit (11, 12) is not read.
    const bad = Buffer.from(wal);
    bad[bad.length - 10] = bad[bad.length - 10]! ^ 0xff;
    expect(await rows(foldWal(db, bad))).toEqual({ t: [1, 2], u: ['in wal'] });
    // A WAL of another database (its salts and checksum are not this header's): ignored whole.
    expect(await rows(foldWal(db, Buffer.alloc(64)))).toEqual({ t: [1], u: null });
  });
});
