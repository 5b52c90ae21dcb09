import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RewindError } from '../errors.js';
import { ensureOwnDir } from '../io/own-file.js';

const STREAM_OVER = 8 * 1024 * 1024;

/**
 * Content-addressed blobs: `objects/<2 hex>/<sha256>`. Written once to a temp name then renamed,
 * never overwritten, verified on every read. Files are user-only: they are copies of code.
 */
export class ObjectStore {
  private readonly known = new Set<string>();
  /** Folders checked to be real folders (no link the project shipped) by this store. */
  private readonly ownDirs = new Map<string, Promise<string>>();
  constructor(readonly dir: string) {}

  /** `objects/` or one of its fan-out folders, made when missing; a link there is refused, nothing written. */
  private ownDir(sub = ''): Promise<string> {
    let p = this.ownDirs.get(sub);
    if (!p) {
      p = sub ? this.ownDir().then((d) => ensureOwnDir(d, sub)) : mkdir(dirname(this.dir), { recursive: true, mode: 0o700 }).then(() => ensureOwnDir(dirname(this.dir), basename(this.dir)));
      p.catch(() => this.ownDirs.delete(sub));
      this.ownDirs.set(sub, p);
    }
    return p;
  }

  pathOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), hash);
  }

  async has(hash: string): Promise<boolean> {
    if (this.known.has(hash)) return true;
    const ok = !!(await stat(this.pathOf(hash)).catch(() => null));
    if (ok) this.known.add(hash);
    return ok;
  }

  async putBuffer(data: Buffer): Promise<string> {
    const hash = createHash('sha256').update(data).digest('hex');
    if (await this.has(hash)) return hash;
    await this.writeNew(hash, async (fh) => {
      await fh.writeFile(data);
    });
    return hash;
  }

  /**
   * Stores bytes already read and hashed (a checkpoint's small files, read synchronously: a few
   * calls each instead of a dozen trips through the thread pool).
   */
  async putHashed(hash: string, data: Buffer): Promise<void> {
    if (this.known.has(hash)) return;
    const sub = await this.ownDir(hash.slice(0, 2));
    const target = join(sub, hash);
    if (!existsSync(target)) {
      const tmp = join(sub, `tmp-${randomBytes(8).toString('hex')}`);
      try {
        writeFileSync(tmp, data, { flag: 'wx', mode: 0o600 });
        renameSync(tmp, target);
      } catch (e) {
        try {
          unlinkSync(tmp);
        } catch {
          // never made
        }
        throw e;
      }
    }
    this.known.add(hash);
  }

  /** Hashes and stores a file, reading it once (a regular file only: see openRegular). */
  async putFile(path: string, size: number): Promise<string> {
    if (size <= SMALL_FILE) {
      // Nearly every file: read synchronously, a few calls instead of a dozen trips through the thread pool.
      const { data, hash } = readSmallSync(path);
      await this.putHashed(hash, data);
      return hash;
    }
    if (size <= STREAM_OVER) {
      const fh = await openRegular(path);
      try {
        return await this.putBuffer(await fh.readFile());
      } finally {
        await fh.close();
      }
    }
    const tmp = join(await this.ownDir(), `tmp-${randomBytes(8).toString('hex')}`);
    const dst = await open(tmp, 'wx', 0o600);
    let hash: string;
    try {
      hash = await hashChunks(path, (chunk) => dst.write(chunk).then(() => undefined));
    } finally {
      await dst.close();
    }
    if (await this.has(hash)) {
      await unlink(tmp);
      return hash;
    }
    await this.ownDir(hash.slice(0, 2));
    await rename(tmp, this.pathOf(hash));
    this.known.add(hash);
    return hash;
  }

  private async writeNew(hash: string, write: (fh: FileHandle) => Promise<void>): Promise<void> {
    const sub = await this.ownDir(hash.slice(0, 2));
    const tmp = join(sub, `tmp-${randomBytes(8).toString('hex')}`);
    const fh = await open(tmp, 'wx', 0o600);
    try {
      await write(fh);
    } finally {
      await fh.close();
    }
    await rename(tmp, this.pathOf(hash));
    this.known.add(hash);
  }

  /** Reads a blob and checks it is what its name says. */
  async read(hash: string): Promise<Buffer> {
    let data: Buffer;
    try {
      data = await readFile(this.pathOf(hash));
    } catch {
      throw new RewindError('NOT_FOUND', `checkpoint object ${hash.slice(0, 12)} is missing from the store`);
    }
    const actual = createHash('sha256').update(data).digest('hex');
    if (actual !== hash) throw new RewindError('IO', `checkpoint object ${hash.slice(0, 12)} is corrupt (content does not match its hash)`);
    return data;
  }
}

/**
 * Opens a file for reading without blocking and without following a final link, and refuses what
 * is not a regular file: a FIFO put where a file was (or named by a tool) must never hang a hook.
 */
export async function openRegular(path: string): Promise<FileHandle> {
  const fh = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  const st = await fh.stat().catch(async (e: unknown) => {
    await fh.close();
    throw e;
  });
  if (!st.isFile()) {
    await fh.close();
    throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENXIO' });
  }
  return fh;
}

/** Files up to this size are read by readSmallSync. */
export const SMALL_FILE = 1024 * 1024;

/**
 * A small regular file's bytes and sha256, read synchronously with the same care as openRegular:
 * no final link followed, never blocking (a FIFO is refused with ENXIO, unopened for reading).
 */
export function readSmallSync(path: string): { data: Buffer; hash: string } {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENXIO' });
    // Read to the end whatever the size said (it can change meanwhile): a read that returns nothing ends it.
    const parts: Buffer[] = [];
    let total = 0;
    const chunk = st.size + 1;
    for (;;) {
      const buf = Buffer.allocUnsafe(chunk);
      const n = readSync(fd, buf, 0, chunk, total);
      if (n === 0) break;
      parts.push(n === chunk ? buf : buf.subarray(0, n));
      total += n;
    }
    const data = parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
    return { data, hash: createHash('sha256').update(data).digest('hex') };
  } finally {
    closeSync(fd);
  }
}

/** Reads a file once in large chunks, hashing it and handing each chunk to `onChunk`. */
async function hashChunks(path: string, onChunk?: (chunk: Buffer) => Promise<void>): Promise<string> {
  const h = createHash('sha256');
  const fh = await openRegular(path);
  try {
    const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
    let pos = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      const chunk = buf.subarray(0, bytesRead);
      h.update(chunk);
      await onChunk?.(chunk);
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return h.digest('hex');
}

export async function hashFile(path: string): Promise<string> {
  return hashChunks(path);
}
