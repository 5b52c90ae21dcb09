import type { FileHandle } from 'node:fs/promises';
import { readRange } from './read-range.js';

/**
 * The first line of a file, without its LF, however long (a Codex `session_meta` carries the
 * model's whole instructions), read in growing windows up to `max` bytes; null past that.
 */
export async function readFirstLine(file: FileHandle | string, max = 16 * 1024 * 1024): Promise<Buffer | null> {
  for (let size = 64 * 1024; ; size *= 4) {
    const head = await readRange(file, 0, Math.min(size, max));
    const nl = head.indexOf(10);
    if (nl !== -1) return head.subarray(0, nl);
    // No LF: the whole file is one (possibly unfinished) line, or the line is longer than we read.
    if (head.length < Math.min(size, max)) return head;
    if (size >= max) return null;
  }
}
