import { open } from 'node:fs/promises';
import { LineSplitter, type RawLine } from './line-splitter.js';

export const READ_CHUNK = 1 << 20;

export interface ReadLinesResult {
  /** Bytes consumed as complete lines: where an incremental reader resumes. */
  endOffset: number;
  /** Size of the file when read. */
  size: number;
  /** An incomplete last line (the agent may still be writing it). */
  partial: RawLine | null;
  lineCount: number;
}

/**
 * Streams the complete lines of a file from `fromOffset` up to the size it had when opened, so a
 * file that grows while we read gives a consistent snapshot.
 */
export async function readLines(
  path: string,
  onLine: (line: RawLine) => void,
  opts: { fromOffset?: number; fromIndex?: number; chunkSize?: number; toOffset?: number } = {},
): Promise<ReadLinesResult> {
  const fh = await open(path, 'r');
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR', path });
    const end = Math.min(opts.toOffset ?? st.size, st.size);
    const splitter = new LineSplitter(opts.fromOffset ?? 0, opts.fromIndex ?? 0);
    const buf = Buffer.allocUnsafe(opts.chunkSize ?? READ_CHUNK);
    let pos = opts.fromOffset ?? 0;
    while (pos < end) {
      const want = Math.min(buf.length, end - pos);
      const { bytesRead } = await fh.read(buf, 0, want, pos);
      if (bytesRead === 0) break;
      splitter.push(buf.subarray(0, bytesRead), onLine);
      pos += bytesRead;
    }
    return { endOffset: splitter.committedOffset, size: end, partial: splitter.peekPartial(), lineCount: splitter.lineCount };
  } finally {
    await fh.close();
  }
}
