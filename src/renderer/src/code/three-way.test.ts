import { describe, expect, it } from 'vitest';
import { threeWay, type Block } from './three-way.js';

const file = (n: number, edit: Record<number, string> = {}) => `${Array.from({ length: n }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n')}\n`;
const conflicts = (bs: Block[]) => bs.filter((b): b is Extract<Block, { kind: 'conflict' }> => b.kind === 'conflict');

describe('three-way view of a revert conflict', () => {
  it('one line #n changed and a later prompt changed again: the three versions of it, marked by who changed them', () => {
    const before = file(40);
    const after = file(40, { 21: 'line 21 by #2' });
    const now = file(40, { 21: 'line 21 by #4' });
    const r = threeWay(before, after, now);
    const [c] = conflicts(r.blocks);
    expect(conflicts(r.blocks)).toHaveLength(1);
    expect(c!.before).toEqual([{ no: 21, text: 'line 21', mark: 'n' }]);
    expect(c!.after).toEqual([{ no: 21, text: 'line 21 by #2', mark: 'both' }]);
    expect(c!.now).toEqual([{ no: 21, text: 'line 21 by #4', mark: 'later' }]);
    // Two lines of each file around it, at their own places; the rest folded.
    expect(r.blocks.map((b) => b.kind)).toEqual(['fold', 'context', 'conflict', 'context', 'fold']);
    expect(r.blocks[0]).toEqual({ kind: 'fold', lines: 18 });
    const above = r.blocks[1]!.kind === 'context' ? r.blocks[1]!.rows : [];
    expect(above.map((row) => [row.before?.no, row.after?.no, row.now?.no])).toEqual([
      [19, 19, 19],
      [20, 20, 20],
    ]);
    expect(r.blocks[4]).toEqual({ kind: 'fold', lines: 17 });
  });

  it('a change of #n that later work left alone is no conflict: only the overlap is shown', () => {
    const before = file(30);
    const after = file(30, { 3: 'three by #2', 20: 'twenty by #2' });
    const now = file(30, { 3: 'three by #2', 20: 'twenty later' });
    const r = threeWay(before, after, now);
    expect(conflicts(r.blocks).map((c) => c.now.map((x) => x.no))).toEqual([[20]]);
  });

  it('context keeps each file at its own line numbers when the files have different lengths', () => {
    const before = 'a\nb\nc\nd\n';
    const after = 'a\nb\nX\nc\nd\n';
    const now = 'top\na\nb\nY\nc\nd\n';
    const r = threeWay(before, after, now, 1);
    const above = r.blocks.find((b) => b.kind === 'context');
    expect(above?.kind === 'context' && above.rows.map((row) => [row.before?.text, row.before?.no, row.now?.text, row.now?.no])).toEqual([['b', 2, 'b', 3]]);
  });

  it('a file the prompt created (nothing before it): the before column is empty, every line of #n marked', () => {
    const r = threeWay(null, 'a\nb\n', 'a\nb changed\n');
    const [c] = conflicts(r.blocks);
    expect(c!.before).toEqual([]);
    expect(c!.after.map((x) => x.mark)).toContain('n');
    expect(c!.now.some((x) => x.text === 'b changed' && x.mark === 'later')).toBe(true);
  });
});
