import type { Entry } from './manifest.js';

/** Kinds in columns: a file, a link, a really empty directory. */
export const KIND_CHARS = ['f', 'l', 'd'] as const;
export type KindChar = (typeof KIND_CHARS)[number];
export const kindCode = (k: KindChar): number => (k === 'f' ? 0 : k === 'l' ? 1 : 2);

/** One row as an object (what the code away from the hot path works with). */
export interface CacheEntry {
  kind: KindChar;
  ref: string;
  mode: number;
  size: number;
  mtimeMs: number;
  /** Absent in a row made from an old manifest (no ctime recorded there). */
  ctimeMs?: number;
  ino: number;
}

/** Where a row's ref comes from when the rows did not make it themselves. */
export type RefSource =
  /** Another set of rows: row i has the ref of `rows` row `from[i]` (-1: its own). */
  | { rows: TreeRows; from: ArrayLike<number> }
  /** A cache file: files' sha256 as 32 bytes each, links' targets in one text made on first use. */
  | { bin: Uint8Array; links: () => string[] };

const HEX = /^[0-9a-f]{64}$/;

/**
 * A tree in columns, one row per path in strict string order: what the stat cache holds and a
 * checkpoint's walk gives. No object per file: 20,000 rows are a handful of arrays, compared and
 * written without making 20,000 of anything. A row's ref (blob hash, link target, '' for a
 * directory) is its own (`own`), or taken from where it came from (`source`) only when asked for:
 * a checkpoint that read 100 files copies the other 19,900 hashes as bytes, never as strings.
 */
export class TreeRows {
  private index: Map<string, number> | null = null;
  private cursor = 0;
  private linkAt: Int32Array | null = null;
  private linkList: string[] | null = null;

  constructor(
    readonly paths: readonly string[],
    readonly kinds: ArrayLike<number>,
    readonly modes: ArrayLike<number>,
    readonly sizes: ArrayLike<number>,
    readonly mtimes: ArrayLike<number>,
    /** NaN: not known. */
    readonly ctimes: ArrayLike<number>,
    readonly inos: ArrayLike<number>,
    private readonly own: readonly (string | null)[] | null,
    private readonly source: RefSource | null = null,
  ) {}

  get length(): number {
    return this.paths.length;
  }

  ref(i: number): string {
    const o = this.own?.[i];
    if (o !== null && o !== undefined) return o;
    const src = this.source;
    if (!src) return '';
    if ('rows' in src) {
      const f = src.from[i]!;
      return f >= 0 ? src.rows.ref(f) : '';
    }
    const k = this.kinds[i];
    if (k === 0) return Buffer.from(src.bin.buffer, src.bin.byteOffset + 32 * i, 32).toString('hex');
    if (k === 1) return this.linkTarget(i, src);
    return '';
  }

  /** A file row's sha256 as 32 bytes into `dst` at `at` (from the cache file's bytes when it came from there). */
  fileRefInto(i: number, dst: Uint8Array, at: number): void {
    const o = this.own?.[i];
    if (o !== null && o !== undefined) {
      if (!HEX.test(o)) throw new Error(`not a sha256: ${o.slice(0, 80)}`);
      Buffer.from(dst.buffer, dst.byteOffset, dst.length).write(o, at, 32, 'hex');
      return;
    }
    const src = this.source;
    if (src && 'rows' in src && src.from[i]! >= 0) return src.rows.fileRefInto(src.from[i]!, dst, at);
    if (src && 'bin' in src) {
      const b = src.bin;
      for (let k = 0, from = 32 * i; k < 32; k++) dst[at + k] = b[from + k]!;
      return;
    }
    throw new Error(`no hash for ${this.paths[i]}`);
  }

  private linkTarget(i: number, src: { links: () => string[] }): string {
    if (!this.linkAt) {
      this.linkAt = new Int32Array(this.length);
      let n = 0;
      for (let r = 0; r < this.length; r++) this.linkAt[r] = this.kinds[r] === 1 ? n++ : -1;
      const list = src.links();
      // The checksum matched, so a count off here is a writer's bug: an empty target never matches a link.
      this.linkList = list.length === n ? list : new Array<string>(n).fill('');
    }
    return this.linkList![this.linkAt[i]!] ?? '';
  }

  kind(i: number): KindChar {
    return KIND_CHARS[this.kinds[i]!]!;
  }

  ctime(i: number): number | undefined {
    const c = this.ctimes[i]!;
    return Number.isNaN(c) ? undefined : c;
  }

  /**
   * The row of `path`, or -1. Asked in path order (as a walk goes), it moves one cursor forward:
   * no map of 20,000 paths is built; a path asked out of order is looked up in one made then.
   */
  find(path: string): number {
    const ps = this.paths;
    let c = this.cursor;
    if (c > 0 && !(ps[c - 1]! < path)) return this.lookup(path);
    while (c < ps.length && ps[c]! < path) c++;
    this.cursor = c;
    return c < ps.length && ps[c] === path ? c : -1;
  }

  private lookup(path: string): number {
    if (!this.index) {
      this.index = new Map();
      for (let i = 0; i < this.paths.length; i++) this.index.set(this.paths[i]!, i);
    }
    return this.index.get(path) ?? -1;
  }

  /** Restarts the in-order cursor (a second pass in path order). */
  rewind(): void {
    this.cursor = 0;
  }

  entry(i: number): CacheEntry {
    const ctimeMs = this.ctime(i);
    return { kind: this.kind(i), ref: this.ref(i), mode: this.modes[i]!, size: this.sizes[i]!, mtimeMs: this.mtimes[i]!, ...(ctimeMs === undefined ? {} : { ctimeMs }), ino: this.inos[i]! };
  }

  toEntry(i: number): Entry {
    return [this.paths[i]!, this.kind(i), this.ref(i), this.modes[i]!, this.sizes[i]!, this.mtimes[i]!, this.inos[i]!];
  }

  /** Rows from objects, sorted by path (manifests, a state read from disk). */
  static fromEntries(list: Iterable<[string, CacheEntry]>): TreeRows {
    const rows = [...list];
    if (!inStrictOrder(rows.map((r) => r[0]))) rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const b = new RowsBuilder();
    for (const [p, e] of rows) b.push(p, kindCode(e.kind), e.mode, e.size, e.mtimeMs, e.ctimeMs ?? Number.NaN, e.ino, e.ref);
    return b.done();
  }
}

function inStrictOrder(paths: readonly string[]): boolean {
  for (let i = 1; i < paths.length; i++) if (!(paths[i - 1]! < paths[i]!)) return false;
  return true;
}

/** Rows made one by one (plain arrays of numbers: V8 keeps them unboxed). */
export class RowsBuilder {
  paths: string[] = [];
  kinds: number[] = [];
  modes: number[] = [];
  sizes: number[] = [];
  mtimes: number[] = [];
  ctimes: number[] = [];
  inos: number[] = [];
  refs: (string | null)[] = [];

  push(path: string, kind: number, mode: number, size: number, mtime: number, ctime: number, ino: number, ref: string | null): number {
    this.paths.push(path);
    this.kinds.push(kind);
    this.modes.push(mode);
    this.sizes.push(size);
    this.mtimes.push(mtime);
    this.ctimes.push(ctime);
    this.inos.push(ino);
    this.refs.push(ref);
    return this.paths.length - 1;
  }

  done(): TreeRows {
    return new TreeRows(this.paths, this.kinds, this.modes, this.sizes, this.mtimes, this.ctimes, this.inos, this.refs);
  }
}
