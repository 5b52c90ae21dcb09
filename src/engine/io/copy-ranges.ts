import type { FileHandle } from 'node:fs/promises';

const BUF = 8 * 1024 * 1024;

/** Copies byte ranges of `src` into `dst` in order, with large buffers (cp-like speed). */
export async function copyRanges(src: FileHandle, dst: FileHandle, ranges: { offset: number; length: number }[]): Promise<number> {
  const buf = Buffer.allocUnsafe(BUF);
  let written = 0;
  for (const r of ranges) {
    let pos = r.offset;
    const end = r.offset + r.length;
    while (pos < end) {
      const want = Math.min(BUF, end - pos);
      const { bytesRead } = await src.read(buf, 0, want, pos);
      if (bytesRead === 0) throw new Error('source shrank while copying');
      let off = 0;
      while (off < bytesRead) {
        const { bytesWritten } = await dst.write(buf, off, bytesRead - off, written);
        off += bytesWritten;
        written += bytesWritten;
      }
      pos += bytesRead;
    }
  }
  return written;
}
