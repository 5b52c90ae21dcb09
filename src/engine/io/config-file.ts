import { isUtf8 } from 'node:buffer';
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** Rewind's own config files (prices, prefs) are small: anything bigger is not one of them. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export type ConfigRead = { kind: 'missing' } | { kind: 'text'; text: string; utf8: boolean } | { kind: 'refused'; why: string; regular: boolean };

/**
 * A config file's text, read only when it is a regular file (a link to one is fine) of at most
 * `max` bytes. A FIFO, a device or a folder put in its place is refused without being opened for a
 * blocking read (a FIFO would hang the caller for ever): checked before the open, then opened
 * non-blocking and checked again on the descriptor.
 */
export async function readConfigFile(path: string, max = MAX_CONFIG_BYTES): Promise<ConfigRead> {
  const st = await stat(path).catch((e: NodeJS.ErrnoException) => e);
  if (st instanceof Error) {
    const code = (st as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'refused', why: st.message, regular: false };
  }
  if (!st.isFile()) return { kind: 'refused', why: 'it is not a regular file', regular: false };
  if (st.size > max) return { kind: 'refused', why: `it is larger than ${max} bytes`, regular: true };
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return { kind: 'refused', why: (e as Error).message, regular: false };
  }
  try {
    const now = await fh.stat();
    if (!now.isFile()) return { kind: 'refused', why: 'it is not a regular file', regular: false };
    if (now.size > max) return { kind: 'refused', why: `it is larger than ${max} bytes`, regular: true };
    const buf = Buffer.alloc(Math.min(now.size, max) + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead > max) return { kind: 'refused', why: `it is larger than ${max} bytes`, regular: true };
    const text = buf.toString('utf8', 0, bytesRead);
    // A byte that is not UTF-8 decodes as U+FFFD: only then is the file checked (writing the text back would change those bytes).
    return { kind: 'text', text, utf8: !text.includes('\uFFFD') || isUtf8(buf.subarray(0, bytesRead)) };
  } finally {
    await fh.close();
  }
}
