/**
 * A SQLite database in WAL mode keeps its newest transactions in `<db>-wal` until a checkpoint
 * copies them into the main file: a reader that loads only the main file (sql.js opens bytes in
 * memory) misses them. `foldWal` applies the WAL's committed frames to the main file's bytes, as
 * SQLite's own recovery does (https://www.sqlite.org/fileformat2.html#the_write_ahead_log): frames
 * are valid while their salts match the header's and the running checksum holds; the pages of the
 * last valid commit frame and every frame before it win. The result is a plain rollback-journal
 * database (header bytes 18-19 set to 1) that an in-memory engine opens as it is.
 */

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

function checksum(buf: Buffer, start: number, end: number, big: boolean, s: [number, number]): [number, number] {
  let [s0, s1] = s;
  for (let i = start; i < end; i += 8) {
    const a = big ? buf.readUInt32BE(i) : buf.readUInt32LE(i);
    const b = big ? buf.readUInt32BE(i + 4) : buf.readUInt32LE(i + 4);
    s0 = (s0 + a + s1) >>> 0;
    s1 = (s1 + b + s0) >>> 0;
  }
  return [s0, s1];
}

/** The committed pages of a WAL file, page number -> content, and the database size in pages after the last commit. */
export function walPages(wal: Buffer): { pageSize: number; pages: Map<number, Buffer>; dbPages: number } | null {
  if (wal.length < WAL_HEADER) return null;
  const magic = wal.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return null;
  const big = (magic & 1) === 1;
  const pageSize = wal.readUInt32BE(8) === 1 ? 65536 : wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let s = checksum(wal, 0, 24, big, [0, 0]);
  if (s[0] !== wal.readUInt32BE(24) || s[1] !== wal.readUInt32BE(28)) return null;
  const pages = new Map<number, Buffer>();
  let pending = new Map<number, Buffer>();
  let dbPages = 0;
  for (let off = WAL_HEADER; off + FRAME_HEADER + pageSize <= wal.length; off += FRAME_HEADER + pageSize) {
    if (wal.readUInt32BE(off + 8) !== salt1 || wal.readUInt32BE(off + 12) !== salt2) break;
    s = checksum(wal, off, off + 8, big, s);
    s = checksum(wal, off + FRAME_HEADER, off + FRAME_HEADER + pageSize, big, s);
    if (s[0] !== wal.readUInt32BE(off + 16) || s[1] !== wal.readUInt32BE(off + 20)) break;
    pending.set(wal.readUInt32BE(off), wal.subarray(off + FRAME_HEADER, off + FRAME_HEADER + pageSize));
    const commit = wal.readUInt32BE(off + 4);
    if (commit > 0) {
      for (const [n, p] of pending) pages.set(n, p);
      pending = new Map();
      dbPages = commit;
    }
  }
  return { pageSize, pages, dbPages };
}

/** The database as its readers see it: the main file with the WAL's committed pages applied. */
export function foldWal(db: Buffer, wal: Buffer | null): Buffer {
  const w = wal ? walPages(wal) : null;
  let out: Buffer;
  if (!w || w.dbPages === 0) out = Buffer.from(db);
  else {
    out = Buffer.alloc(w.dbPages * w.pageSize);
    db.copy(out, 0, 0, Math.min(db.length, out.length));
    for (const [n, p] of w.pages) if (n <= w.dbPages) p.copy(out, (n - 1) * w.pageSize);
  }
  // Read and write versions 2 mean WAL: an in-memory engine has no -wal or -shm beside it.
  if (out.length >= 100 && out[18] === 2) {
    out[18] = 1;
    out[19] = 1;
  }
  return out;
}
