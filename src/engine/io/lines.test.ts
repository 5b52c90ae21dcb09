import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { LineSplitter, type RawLine } from './line-splitter.js';
import { readLines } from './read-lines.js';
import { ReverseLineReader } from './reverse-lines.js';

function splitAll(chunks: Buffer[]): { lines: RawLine[]; partial: RawLine | null } {
  const s = new LineSplitter();
  const lines: RawLine[] = [];
  for (const c of chunks) s.push(c, (l) => lines.push({ ...l, bytes: Buffer.from(l.bytes) }));
  return { lines, partial: s.peekPartial() };
}

describe('LineSplitter', () => {
  it('gives offsets, strips CR, keeps a partial last line', () => {
    const { lines, partial } = splitAll([Buffer.from('ab\r\ncd\n\nef')]);
    expect(lines.map((l) => [l.offset, l.length, l.bytes.toString()])).toEqual([
      [0, 4, 'ab'],
      [4, 3, 'cd'],
      [7, 1, ''],
    ]);
    expect(partial?.offset).toBe(8);
    expect(partial?.bytes.toString()).toBe('ef');
  });

  it('never splits a UTF-8 character that straddles chunks', () => {
    const text = 'héllo→wörld 😀\nsecond ✓\n';
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { lines } = splitAll([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(lines.map((l) => l.bytes.toString('utf8'))).toEqual(['héllo→wörld 😀', 'second ✓']);
    }
  });

  it('joins a line spread over many chunks', () => {
    const big = 'x'.repeat(100_000);
    const bytes = Buffer.from(`${big}\nend\n`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 777) chunks.push(bytes.subarray(i, i + 777));
    const { lines } = splitAll(chunks);
    expect(lines[0]!.bytes.length).toBe(100_000);
    expect(lines[1]).toMatchObject({ offset: 100_001, length: 4 });
  });
});

describe('file readers', () => {
  it('forward and backward agree on every line, with tiny chunks', async () => {
    const dir = await tempDir('rewind-lines-');
    const parts = ['{"a":1}', '', 'é'.repeat(50), '{"b":2}\r', 'z'.repeat(300)];
    for (const tail of ['', 'partial-no-newline']) {
      const path = join(dir, `f${tail.length}.jsonl`);
      await writeFile(path, parts.join('\n') + '\n' + tail);
      const fwd: RawLine[] = [];
      const res = await readLines(path, (l) => fwd.push({ ...l, bytes: Buffer.from(l.bytes) }), { chunkSize: 7 });
      expect(res.partial?.bytes.toString() ?? '').toBe(tail);
      for (const chunk of [1, 3, 64, 1 << 16]) {
        const fh = await open(path, 'r');
        const r = new ReverseLineReader(fh, (await fh.stat()).size, chunk);
        const back = [];
        for await (const l of r.lines()) back.push({ offset: l.offset, length: l.length, text: l.bytes.toString() });
        await fh.close();
        expect(back.reverse()).toEqual(fwd.map((l) => ({ offset: l.offset, length: l.length, text: l.bytes.toString() })));
        expect(r.partialTail?.length ?? 0).toBe(Buffer.byteLength(tail));
      }
    }
  });

  it('reads nothing from an empty file and only a partial from a file without LF', async () => {
    const dir = await tempDir('rewind-lines-');
    const empty = join(dir, 'e');
    await writeFile(empty, '');
    const fh = await open(empty, 'r');
    const r = new ReverseLineReader(fh, 0);
    const got = [];
    for await (const l of r.lines()) got.push(l);
    await fh.close();
    expect(got).toEqual([]);
    const nolf = join(dir, 'n');
    await writeFile(nolf, 'abc');
    const fh2 = await open(nolf, 'r');
    const r2 = new ReverseLineReader(fh2, 3, 2);
    for await (const l of r2.lines()) got.push(l);
    await fh2.close();
    expect(got).toEqual([]);
    expect(r2.partialTail).toEqual({ offset: 0, length: 3 });
  });
});
