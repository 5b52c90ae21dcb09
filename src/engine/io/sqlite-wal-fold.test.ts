import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import initSqlJs from 'sql.js';
import { FIXTURES } from '../../../test/fixtures.js';
import { foldWal } from './sqlite-wal-fold.js';

const DIR = join(FIXTURES, 'codex-0.171-wal');

async function count(bytes: Buffer, sql: string): Promise<number> {
  const SQL = await initSqlJs();
  const copy = Buffer.from(bytes);
  copy[18] = copy[19] = 1;
  const h = new SQL.Database(copy);
  try {
    return Number(h.exec(sql)[0]!.values[0]![0]);
  } finally {
    h.close();
  }
}

describe('folding a WAL Codex left behind', () => {
  it('the committed frames are applied: what only the WAL holds is there, nothing uncommitted, the database whole', async () => {
    const db = await readFile(join(DIR, 'thread_history_1.sqlite'));
    const wal = await readFile(join(DIR, 'thread_history_1.sqlite-wal'));
    const folded = foldWal(db, wal);
    const before = await count(db, 'select count(*) from thread_items');
    const after = await count(folded, 'select count(*) from thread_items');
    expect([before, after]).toEqual([11, 6]);
    expect(await count(folded, "select count(*) from thread_history_projection_state where thread_id = 'wal-only-thread'")).toBe(1);
    expect(await count(folded, "select count(*) from thread_history_projection_state where thread_id = 'uncommitted'")).toBe(0);
    expect(await count(folded, "select count(*) from pragma_integrity_check where integrity_check = 'ok'")).toBe(1);
  });

  it('no WAL, an empty one or a torn header: the main file as it is', async () => {
    const db = await readFile(join(DIR, 'thread_history_1.sqlite'));
    const wal = await readFile(join(DIR, 'thread_history_1.sqlite-wal'));
    expect(foldWal(db, null)).toBe(db);
    expect(foldWal(db, Buffer.alloc(0))).toBe(db);
    const torn = Buffer.from(wal);
    torn[24] = torn[24]! ^ 0xff;
    expect(foldWal(db, torn)).toBe(db);
  });
});
