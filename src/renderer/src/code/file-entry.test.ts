import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { entryOf, initiallyOpen } from './file-entry.js';

const change = (o: Partial<Parameters<typeof entryOf>[0]>) => ({ path: 'a.ts', action: 'modify' as const, kind: 'f' as const, conflict: null, binary: false, sizeBefore: 10, sizeAfter: 12, patch: null, ...o });
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}`).join('\n') + '\n';

describe('a changed file in the preview', () => {
  it('with a diff: parsed, counted, no summary', () => {
    const e = entryOf(change({ patch: createTwoFilesPatch('a/a.ts', 'b/a.ts', 'x\n', 'y\n') }));
    expect([e.parsed?.added, e.parsed?.removed, e.summary, e.large]).toEqual([1, 1, null, false]);
  });
  it('binary, large, a note from the engine, or no diff yet: said in words', () => {
    expect(entryOf(change({ binary: true, sizeBefore: 12 * 1024, sizeAfter: 14 * 1024 })).summary).toBe('binary, 12 KB → 14 KB');
    const big = entryOf(change({ patch: createTwoFilesPatch('a/a.ts', 'b/a.ts', lines(1000, 'a'), lines(1000, 'b')) }));
    expect([big.large, big.summary]).toEqual([true, 'large file: 2000 lines changed']);
    expect(entryOf(change({ note: 'large file: 90000 lines changed' })).summary).toBe('large file: 90000 lines changed');
    expect(entryOf(change({ sizeBefore: 2048, sizeAfter: 1024 })).summary).toBe('2 KB → 1 KB, no diff computed');
    expect(entryOf(change({ kind: 'd', action: 'delete' })).summary).toBe('folder, removed');
  });
  it('files open in order until the budget of drawn lines is spent', () => {
    const e = (path: string, n: number) => entryOf(change({ path, patch: createTwoFilesPatch(`a/${path}`, `b/${path}`, '', lines(n, path)) }));
    expect(initiallyOpen([e('a', 1400), e('b', 1400), e('c', 1400), e('d', 10), e('e', 10)])).toEqual({ a: true, b: true, c: true, d: false, e: false });
  });
});
