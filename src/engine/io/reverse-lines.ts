import type { FileHandle } from 'node:fs/promises';

export interface ReverseLine {
  offset: number;
  /** Length including the LF. */
  length: number;
  /** The bytes without LF and trailing CR. */
  bytes: Buffer;
}

/**
 * Reads complete lines backwards from `end` in fixed-size chunks: the cost of finding something
 * near the end of a transcript grows with the tail scanned, not with the file. Lines come newest
 * first. Bytes after the last LF are an incomplete line (the agent may be writing it): they are
 * reported in `partialTail`, never yielded.
 */
export class ReverseLineReader {
  /** Bytes [pos, lineEnd) not yet yielded. */
  private carry: Buffer = Buffer.alloc(0);
  private pos: number;
  partialTail: { offset: number; length: number } | null = null;
  bytesRead = 0;

  constructor(
    private readonly fh: FileHandle,
    readonly end: number,
    private readonly chunkSize = 256 * 1024,
  ) {
    this.pos = end;
  }

  /** Offset of the earliest byte read so far. */
  get scannedFrom(): number {
    return this.pos;
  }

  /** Reads chunks leftwards until one holds an LF (or the file starts), then joins them once. */
  private async readLeft(): Promise<void> {
    const parts: Buffer[] = [];
    let total = 0;
    do {
      const size = Math.min(this.chunkSize, this.pos);
      const buf = Buffer.allocUnsafe(size);
      const from = this.pos - size;
      let got = 0;
      while (got < size) {
        const { bytesRead } = await this.fh.read(buf, got, size - got, from + got);
        if (bytesRead === 0) throw new Error('file shrank while reading');
        got += bytesRead;
      }
      this.pos = from;
      this.bytesRead += size;
      parts.unshift(buf);
      total += size;
      if (buf.indexOf(10) !== -1) break;
    } while (this.pos > 0);
    if (this.carry.length) parts.push(this.carry);
    this.carry = parts.length === 1 ? parts[0]! : Buffer.concat(parts, total + this.carry.length);
  }

  async *lines(): AsyncGenerator<ReverseLine> {
    if (this.end === 0) return;
    // Find the last LF: whatever follows it is the partial tail.
    for (;;) {
      await this.readLeft();
      const nl = this.carry.lastIndexOf(10);
      if (nl !== -1) {
        if (nl !== this.carry.length - 1) {
          this.partialTail = { offset: this.pos + nl + 1, length: this.carry.length - nl - 1 };
          this.carry = this.carry.subarray(0, nl + 1);
        }
        break;
      }
      if (this.pos === 0) {
        this.partialTail = { offset: 0, length: this.carry.length };
        return;
      }
    }
    // Invariant: carry is non-empty and ends with the LF of the next line to yield.
    while (this.carry.length > 0) {
      const prevNl = this.carry.length >= 2 ? this.carry.lastIndexOf(10, this.carry.length - 2) : -1;
      if (prevNl === -1 && this.pos > 0) {
        await this.readLeft();
        continue;
      }
      const start = prevNl + 1;
      let bytes = this.carry.subarray(start, this.carry.length - 1);
      if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
      const line = { offset: this.pos + start, length: this.carry.length - start, bytes };
      this.carry = this.carry.subarray(0, start);
      yield line;
    }
  }
}
