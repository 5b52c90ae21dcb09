import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { readRange } from './read-range.js';

export interface Fingerprint {
  size: number;
  /** sha256 of the first and last 64 KiB: cheap on a GiB file, and any rewrite or append shows. */
  head: string;
  tail: string;
}

export const FINGERPRINT_WINDOW = 64 * 1024;

/** sha256 of a byte range (the transcript cursor of a checkpoint uses the same window as a fingerprint). */
export async function hashRange(fh: FileHandle, offset: number, length: number): Promise<string> {
  return createHash('sha256').update(await readRange(fh, offset, length)).digest('hex');
}

export async function fingerprintHandle(fh: FileHandle, size?: number): Promise<Fingerprint> {
  const s = size ?? (await fh.stat()).size;
  return {
    size: s,
    head: await hashRange(fh, 0, Math.min(FINGERPRINT_WINDOW, s)),
    tail: await hashRange(fh, Math.max(0, s - FINGERPRINT_WINDOW), Math.min(FINGERPRINT_WINDOW, s)),
  };
}

export async function fingerprintFile(path: string): Promise<Fingerprint> {
  const fh = await open(path, 'r');
  try {
    return await fingerprintHandle(fh);
  } finally {
    await fh.close();
  }
}

export function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  return a.size === b.size && a.head === b.head && a.tail === b.tail;
}
