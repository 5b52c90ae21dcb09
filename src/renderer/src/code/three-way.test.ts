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
    // Two lines of context each side, from the file now; the rest folded.
    expect(r.blocks[0]).toMatchObject({ kind: 'context', above: [], folded: 18 });
    expect(r.blocks[0]!.kind === 'context' && r.blocks[0]!.below.map((l) => l.no)).toEqual([19, 20]);
    expect(r.blocks[2]).toMatchObject({ kind: 'context', folded: 17, below: [] });
    expect(r.blocks[2]!.kind === 'context' && r.blocks[2]!.above.map((l) => l.no)).toEqual([22, 23]);
  });

  it('a change of #n that later work left alone is no conflict: only the overlap is shown', () => {
    const before = file(30);
    const after = file(30, { 3: 'three by #2', 20: 'twenty by #2' });
    const now = file(30, { 3: 'three by #2', 20: 'twenty later' });
    const r = threeWay(before, after, now);
    expect(conflicts(r.blocks).map((c) => c.now.map((x) => x.no))).toEqual([[20]]);
  });

  it('a file the prompt created (nothing before it): the before column is empty, every line of #n marked', () => {
    const r = threeWay(null, 'a\nb\n', 'a\nb changed\n');
    const [c] = conflicts(r.blocks);
    expect(c!.before).toEqual([]);
    expect(c!.after.map((x) => x.mark)).toContain('n');
    expect(c!.now.some((x) => x.text === 'b changed' && x.mark === 'later')).toBe(true);
  });
});
