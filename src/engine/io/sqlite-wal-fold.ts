/**
 * The committed content of a SQLite database in WAL mode whose `-wal` nobody has open: the main
 * file's bytes with the WAL's committed frames applied, as SQLite's own recovery does
 * (https://www.sqlite.org/fileformat2.html#the_write_ahead_log). Frames count while their salts
 * match the WAL header's and the running checksum holds; the pages of the last commit frame and of
 * every valid frame before it win, and the database ends at that commit's size.
 */

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

function checksum(buf: Buffer, start: number, end: number, big: boolean, s0: number, s1: number): [number, number] {
  for (let i = start; i < end; i += 8) {
    s0 = (s0 + (big ? buf.readUInt32BE(i) : buf.readUInt32LE(i)) + s1) >>> 0;
    s1 = (s1 + (big ? buf.readUInt32BE(i + 4) : buf.readUInt32LE(i + 4)) + s0) >>> 0;
  }
  return [s0, s1];
}

/** `db` with `wal`'s committed frames folded in (a copy); `db` itself when the WAL holds no commit. */
export function foldWal(db: Buffer, wal: Buffer | null): Buffer {
  if (!wal || wal.length < WAL_HEADER) return db;
  const magic = wal.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return db;
  const big = magic === 0x377f0683;
  const pageSize = wal.readUInt32BE(8) || 65536;
  let [s0, s1] = checksum(wal, 0, 24, big, 0, 0);
  if (s0 !== wal.readUInt32BE(24) || s1 !== wal.readUInt32BE(28)) return db;
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  const pending = new Map<number, Buffer>();
  const committed = new Map<number, Buffer>();
  let dbPages = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    [s0, s1] = checksum(wal, at, at + 8, big, s0, s1);
    [s0, s1] = checksum(wal, at + FRAME_HEADER, at + FRAME_HEADER + pageSize, big, s0, s1);
    if (s0 !== wal.readUInt32BE(at + 16) || s1 !== wal.readUInt32BE(at + 20)) break;
    pending.set(wal.readUInt32BE(at), wal.subarray(at + FRAME_HEADER, at + FRAME_HEADER + pageSize));
    const commitSize = wal.readUInt32BE(at + 4);
    if (commitSize !== 0) {
      for (const [n, page] of pending) committed.set(n, page);
      pending.clear();
      dbPages = commitSize;
    }
  }
  if (dbPages === 0) return db;
  const out = Buffer.alloc(dbPages * pageSize);
  db.copy(out, 0, 0, Math.min(db.length, out.length));
  for (const [n, page] of committed) if (n <= dbPages) page.copy(out, (n - 1) * pageSize);
  return out;
}
