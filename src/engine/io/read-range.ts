import { open, type FileHandle } from 'node:fs/promises';

/** Reads `length` bytes at `offset` (fewer at the end of the file). */
export async function readRange(file: FileHandle | string, offset: number, length: number): Promise<Buffer> {
  const fh = typeof file === 'string' ? await open(file, 'r') : file;
  try {
    const buf = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.subarray(0, got);
  } finally {
    if (typeof file === 'string') await fh.close();
  }
}
