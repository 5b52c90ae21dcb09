import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlite, readSqliteWith } from './sqlite-read.js';

// Written by SQLite itself (the sqlite3 shell, `journal_mode=wal`, auto-checkpoint off) and copied
// while the shell still held the database open: `t` = 1 in the main file; 2, the table `u` and
// 11, 12 only in the WAL (three commits).
const dir = join(import.meta.dirname, '../../../test/fixtures/sqlite-wal');
const hashes = async () => Object.fromEntries(await Promise.all((await readdir(dir)).map(async (f) => [f, createHash('sha256').update(await readFile(join(dir, f))).digest('hex')])));

describe('reading a store an agent keeps in WAL mode', () => {
  it('sees the transactions still only in the WAL, and leaves the files as they were (no checkpoint, no -shm)', async () => {
    const before = await hashes();
    const r = await readSqliteWith(join(dir, 'live.db'), (db) => ({ t: db.all('select x from t order by x').map((x) => x.x), u: db.all('select y from u').map((x) => x.y) }));
    expect(r).toEqual({ t: [1, 2, 11, 12], u: ['in wal'] });
    expect(await hashes()).toEqual(before);
  });

  it('a missing or foreign file is a one-line error', async () => {
    await expect(openSqlite(join(dir, 'nothing.db'))).rejects.toThrow(/^database not found: /);
    await expect(openSqlite(join(import.meta.dirname, 'sqlite-read.ts'))).rejects.toThrow(/not a readable SQLite database|cannot open/);
  });
});
