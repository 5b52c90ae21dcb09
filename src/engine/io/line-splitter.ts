/**
 * Splits a byte stream into lines at LF bytes. Working on bytes, not strings, means a UTF-8
 * character split across two chunks is never decoded half-way, and every line knows its exact
 * byte offset in the file (what a rewind cuts at).
 */
export interface RawLine {
  /** 0-based line number in the file. */
  index: number;
  /** Byte offset of the first byte of the line. */
  offset: number;
  /** Length in bytes including the terminating LF (and CR before it, if any). */
  length: number;
  /** The line's bytes without the LF and without a trailing CR. */
  bytes: Buffer;
}

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private nextOffset: number;
  private nextIndex = 0;

  constructor(startOffset = 0, startIndex = 0) {
    this.nextOffset = startOffset;
    this.nextIndex = startIndex;
  }

  /** Offset where the next (possibly incomplete) line starts. */
  get committedOffset(): number {
    return this.nextOffset;
  }

  get lineCount(): number {
    return this.nextIndex;
  }

  /** Calls `onLine` for every complete line in `chunk` (plus what was pending). */
  push(chunk: Buffer, onLine: (line: RawLine) => void): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      let bytes: Buffer;
      if (this.pendingBytes > 0) {
        this.pending.push(chunk.subarray(start, nl));
        bytes = Buffer.concat(this.pending, this.pendingBytes + (nl - start));
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        bytes = chunk.subarray(start, nl);
      }
      const length = bytes.length + 1;
      if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
      onLine({ index: this.nextIndex++, offset: this.nextOffset, length, bytes });
      this.nextOffset += length;
      start = nl + 1;
    }
    if (start < chunk.length) {
      // Copy: the caller may reuse its read buffer.
      const rest = Buffer.from(chunk.subarray(start));
      this.pending.push(rest);
      this.pendingBytes += rest.length;
    }
  }

  /** The incomplete last line (no LF yet), if any, without consuming it. */
  peekPartial(): RawLine | null {
    if (this.pendingBytes === 0) return null;
    const bytes = Buffer.concat(this.pending, this.pendingBytes);
    return { index: this.nextIndex, offset: this.nextOffset, length: bytes.length, bytes };
  }
}
