import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';

export interface Fingerprint {
  size: number;
  /** sha256 of the first and last 64 KiB: cheap on a GiB file, and any rewrite or append shows. */
  head: string;
  tail: string;
}

const WINDOW = 64 * 1024;

async function hashRange(fh: FileHandle, offset: number, length: number): Promise<string> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, offset + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return createHash('sha256').update(buf.subarray(0, got)).digest('hex');
}

export async function fingerprintHandle(fh: FileHandle, size?: number): Promise<Fingerprint> {
  const s = size ?? (await fh.stat()).size;
  return {
    size: s,
    head: await hashRange(fh, 0, Math.min(WINDOW, s)),
    tail: await hashRange(fh, Math.max(0, s - WINDOW), Math.min(WINDOW, s)),
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
