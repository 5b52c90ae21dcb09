import type { PromptLines } from '../prompts/search.js';
import { LINE_SCAN_WASM } from './line-scan-wasm.js';

/** The compiled scanner's exports (wasm/line-scan.ts). */
interface Exports {
  memory: WebAssembly.Memory;
  init(cap: number): void;
  patternPtr(k: number): number;
  setPattern(k: number, n: number): void;
  setHead(bytes: number): void;
  inputPtr(): number;
  inputCap(): number;
  reset(): void;
  reserveInput(cap: number): number;
  line(s: number, e: number): number;
  commit(isPrompt: number): number;
  seed(n: number, depth: number): number;
  depthAt(p: number, n: number): number;
  readId(): number;
  readLength(): number;
  parentAt(): number;
  parentLength(): number;
  arenaPtr(): number;
  leafOffset(): number;
  leafLength(): number;
  writtenCount(): number;
  missingParent(): number;
  recentIds(depthsAt: number): number;
  windowLines(s: number, e: number, out: number, dropFirst: number, dropLast: number): number;
  recentOffset(k: number): number;
  recentLength(k: number): number;
}

/** `line`'s result bits. */
export const CANDIDATE = 1;
export const MESSAGE = 2;
/** Memory grew during the call: views of it must be made again. */
const GREW = 4;
const RECENT = 16;
/** The scanner's pattern slots for `windowLines` (wasm/line-scan.ts). */
const P_WINDOW = 6;
const WINDOW_PATTERNS = 5;
/** The input's first size: pieces are read 128 KiB at a time, with room for a carried partial line. */
const FIRST_INPUT = 1024 * 1024;

let module: WebAssembly.Module | null = null;

/**
 * One thread's scanner: the file's bytes are read straight into its memory (`input`), and each
 * line is checked there with one call. Not shared between threads (each has its own instance).
 */
export class LineScanner {
  private readonly x: Exports;
  private configured: PromptLines | null = null;
  /** The input region, as a Buffer over the instance's memory (made again when memory grows). */
  input!: Buffer;
  /** All of the instance's memory (made again when it grows). */
  private mem!: Buffer;
  private at = 0;

  constructor() {
    module ??= new WebAssembly.Module(Buffer.from(LINE_SCAN_WASM, 'base64'));
    this.x = new WebAssembly.Instance(module, {}).exports as unknown as Exports;
    this.x.init(FIRST_INPUT);
    this.refresh();
  }

  private refresh(): void {
    this.at = this.x.inputPtr();
    this.mem = Buffer.from(this.x.memory.buffer);
    this.input = this.mem.subarray(this.at, this.at + this.x.inputCap());
  }

  private told(code: number): number {
    if (code & GREW) this.refresh();
    return code;
  }

  /** Starts a file read with these lines' patterns, knowing the previous scan's last ids (an append). */
  start(lines: PromptLines, recent: Record<string, number>): void {
    if (this.configured !== lines) this.configure(lines);
    this.x.reset();
    for (const [id, depth] of Object.entries(recent)) {
      const n = this.input.write(id, 0, 'latin1');
      this.told(this.x.seed(n, depth));
    }
  }

  /** The window patterns set last (the same array object is not written again). */
  private windowPatterns: readonly Buffer[] | null = null;

  /**
   * The lines of `bytes` (a file's first or last bytes) as `text.split('\n')` would give them (the
   * first dropped when it may be cut, the last too, empty ones left out), each with a bit per
   * pattern of `patterns` (at most 5) it holds: one call for the whole window, and no text decoded
   * for lines that are only looked at. Uses the input: not while a file is being read.
   */
  windowLines(bytes: Buffer, patterns: readonly Buffer[], dropFirst: boolean, dropLast: boolean): { start: number; end: number; bits: number }[] {
    if (patterns.length > WINDOW_PATTERNS) throw new Error(`at most ${WINDOW_PATTERNS} window patterns`);
    if (this.windowPatterns !== patterns) {
      for (let k = 0; k < WINDOW_PATTERNS; k++) this.setPattern(P_WINDOW + k, patterns[k]);
      this.windowPatterns = patterns;
    }
    // The window at the input's start, the lines' records after it (three i32s a line at most per two bytes).
    const outAt = (bytes.length + 15) & ~15;
    const need = outAt + (Math.floor(bytes.length / 2) + 2) * 12;
    if (need > this.input.length) this.grow(need);
    this.input.set(bytes, 0);
    const n = this.x.windowLines(this.at, this.at + bytes.length, this.at + outAt, dropFirst ? 1 : 0, dropLast ? 1 : 0);
    const rec = new Int32Array(this.x.memory.buffer, this.at + outAt, n * 3);
    const lines: { start: number; end: number; bits: number }[] = new Array(n);
    for (let k = 0; k < n; k++) lines[k] = { start: rec[3 * k]!, end: rec[3 * k + 1]!, bits: rec[3 * k + 2]! };
    return lines;
  }

  private configure(lines: PromptLines): void {
    const keys = lines.links;
    const pats = [lines.marker, lines.notPrompt, keys?.parent, keys?.own, keys?.exclude, keys?.fallbackParent];
    pats.forEach((p, k) => this.setPattern(k, typeof p === 'string' ? Buffer.from(p, 'latin1') : p));
    this.x.setHead(keys?.headBytes ?? 0);
    this.configured = lines;
  }

  /** Pattern slot `k` holds `bytes` (none: unused). A slot holds 64 bytes. */
  private setPattern(k: number, bytes: Buffer | undefined): void {
    if (bytes && bytes.length > 64) throw new Error(`scanner pattern longer than 64 bytes: ${bytes.toString('latin1')}`);
    if (bytes) this.mem.set(bytes, this.x.patternPtr(k));
    this.x.setPattern(k, bytes?.length ?? 0);
  }

  /** The input holds at least `cap` bytes (what it holds is kept). */
  grow(cap: number): void {
    this.told(this.x.reserveInput(cap));
    // The input is longer even when the memory did not have to grow: its view is made again.
    if (this.input.length < cap) this.refresh();
  }

  /** Checks the line at [s, e) of the input: CANDIDATE and MESSAGE bits. */
  line(s: number, e: number): number {
    return this.told(this.x.line(this.at + s, this.at + e));
  }

  /** The message `line` reported (MESSAGE with CANDIDATE) is or is not a prompt. */
  commit(isPrompt: boolean): void {
    this.told(this.x.commit(isPrompt ? 1 : 0));
  }

  /** The id and parent the last `line` read (null: not a message of the path), as latin1 strings. */
  lastLink(): { id: string; parent: string | null } | null {
    const p = this.x.readId();
    if (p < 0) return null;
    const mem = this.mem;
    const q = this.x.parentAt();
    return { id: mem.toString('latin1', p, p + this.x.readLength()), parent: q < 0 ? null : mem.toString('latin1', q, q + this.x.parentLength()) };
  }

  private arenaString(off: number, n: number): string {
    const a = this.x.arenaPtr() + off;
    return this.mem.toString('latin1', a, a + n);
  }

  private depthOf(id: string): number {
    // The id's bytes in the input's first bytes (its contents are no longer needed at the end of a read).
    const n = this.input.write(id, 0, 'latin1');
    return this.x.depthAt(this.at, n);
  }

  /** After the read: the ids written (how many, the last, the last RECENT in order with depths) and whether a parent was unknown. */
  finish(prevRecent: Record<string, number>, prevLeaf: string | null): { leaf: string | null; live: number; recent: Record<string, number>; missing: boolean } {
    const written = this.x.writtenCount();
    const leaf = written > 0 ? this.arenaString(this.x.leafOffset(), this.x.leafLength()) : prevLeaf;
    // Ids one per line at the input's start, their depths at its end: one call, one string.
    const depthsAt = this.at + this.input.length - RECENT * 4;
    const n = this.x.recentIds(depthsAt);
    let order: string[];
    let depthOf: (id: string, k: number) => number;
    if (n >= 0) {
      order = n > 0 ? this.input.toString('latin1', 0, n - 1).split('\n') : [];
      const depths = new Int32Array(this.x.memory.buffer, depthsAt, RECENT);
      depthOf = (_, k) => depths[k]!;
    } else {
      // Ids too long for one string: one by one.
      order = [];
      for (let k = Math.max(0, written - RECENT); k < written; k++) order.push(this.arenaString(this.x.recentOffset(k), this.x.recentLength(k)));
      depthOf = (id) => this.depthOf(id);
    }
    // A null-prototype object is a dictionary from the start: each new id would otherwise make a new hidden class.
    const recent = Object.create(null) as Record<string, number>;
    if (order.length < RECENT) for (const id of Object.keys(prevRecent).slice(-(RECENT - order.length))) recent[id] = Math.max(0, this.depthOf(id));
    order.forEach((id, k) => {
      recent[id] = Math.max(0, depthOf(id, k));
    });
    const live = leaf === null ? 0 : Math.max(0, this.depthOf(leaf));
    return { leaf, live, recent, missing: this.x.missingParent() !== 0 };
  }
}

let mine: LineScanner | null = null;

/** This thread's scanner. */
export function lineScanner(): LineScanner {
  return (mine ??= new LineScanner());
}
