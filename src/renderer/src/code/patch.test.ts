import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { capHunks, parseFilePatch, splitRows } from './patch.js';

const patch = (a: string, b: string) => createTwoFilesPatch('a/x.ts', 'b/x.ts', a, b, '', '', { context: 1 });

describe('file patch', () => {
  it('a created file reads @@ -0,0 +1,N @@, a deleted one @@ -1,N +0,0 @@, as git writes them', () => {
    const created = parseFilePatch(createTwoFilesPatch('/dev/null', 'b/x.ts', '', 'one\ntwo\n', '', '', { context: 3 }));
    expect(created.hunks.map((h) => h.header)).toEqual(['@@ -0,0 +1,2 @@']);
    expect(created.hunks[0]!.lines.map((l) => l.newNo)).toEqual([1, 2]);
    const deleted = parseFilePatch(createTwoFilesPatch('a/x.ts', '/dev/null', 'one\n', '', '', '', { context: 3 }));
    expect(deleted.hunks.map((h) => h.header)).toEqual(['@@ -1,1 +0,0 @@']);
    // An insertion after line 2 of a file that had lines: -2,0 (the line before it).
    const inserted = parseFilePatch(createTwoFilesPatch('a/x.ts', 'b/x.ts', 'a\nb\n', 'a\nb\nc\n', '', '', { context: 0 }));
    expect(inserted.hunks.map((h) => h.header)).toEqual(['@@ -2,0 +3,1 @@']);
  });

  it('numbers each side, counts +/- and keeps every hunk', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const after = [...before];
    after[1] = 'changed 2';
    after.splice(15, 1);
    after.push('tail');
    const p = parseFilePatch(patch(`${before.join('\n')}\n`, `${after.join('\n')}\n`));
    expect(p.hunks).toHaveLength(3);
    expect([p.added, p.removed]).toEqual([2, 2]);
    const first = p.hunks[0]!.lines;
    expect(first.map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ['ctx', 1, 1],
      ['del', 2, null],
      ['add', null, 2],
      ['ctx', 3, 3],
    ]);
    expect(p.hunks[2]!.lines.at(-1)).toEqual({ kind: 'add', text: 'tail', oldNo: null, newNo: 20 });
  });

  it('a created file is all additions; no newline at end is a note, not a line', () => {
    const p = parseFilePatch(createTwoFilesPatch('/dev/null', 'b/n.ts', '', 'a\nb', '', ''));
    expect([p.added, p.removed]).toEqual([2, 0]);
    expect(p.hunks[0]!.lines.filter((l) => l.kind === 'note')).toHaveLength(1);
  });

  it('side by side: removed lines face the added lines that replace them', () => {
    const p = parseFilePatch(patch('a\nb\nc\nd\n', 'a\nB\nd\nx\ny\n'));
    const rows = splitRows(p.hunks.flatMap((h) => h.lines));
    expect(rows.map((r) => [r.left?.text ?? null, r.right?.text ?? null])).toEqual([
      ['a', 'a'],
      ['b', 'B'],
      ['c', null],
      ['d', 'd'],
      [null, 'x'],
      [null, 'y'],
    ]);
  });
});

describe('a drawn diff is bounded', () => {
  it('cuts after max lines and counts what it left out', () => {
    const h = (n: number) => ({ header: '@@', lines: Array.from({ length: n }, (_, i) => ({ kind: 'add' as const, text: `${i}`, oldNo: null, newNo: i + 1 })) });
    const r = capHunks([h(3), h(4), h(5)], 5);
    expect(r.hunks.map((x) => x.lines.length)).toEqual([3, 2]);
    expect(r.hidden).toBe(7);
    expect(capHunks([h(3)], 5)).toEqual({ hunks: [h(3)], hidden: 0 });
  });
});
