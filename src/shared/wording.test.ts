import { describe, expect, it } from 'vitest';
import { bytes, fileChangeSummary, listed, plural, restoredSummary, untouchedSentence } from './wording.js';

describe('wording', () => {
  it('plural', () => {
    expect([plural(1, 'file'), plural(2, 'file'), plural(0, 'prompt'), plural(3, 'patch')]).toEqual(['1 file', '2 files', '0 prompts', '3 patches']);
  });
  it('restoredSummary says what happened to the files', () => {
    expect(restoredSummary({ written: 0, deleted: 0 })).toBe('Restored: the files already matched');
    expect(restoredSummary({ written: 1, deleted: 0 })).toBe('Restored 1 file');
    expect(restoredSummary({ written: 0, deleted: 2 })).toBe('Restored: deleted 2 files made since');
    expect(restoredSummary({ written: 1, deleted: 2 })).toBe('Restored 3 files (1 written back, 2 deleted)');
  });
  it('files Claude never edited are named, with the verb agreeing', () => {
    expect(untouchedSentence(['a.txt'])).toBe('1 file Claude never edited stays as it is: a.txt');
    expect(untouchedSentence(['a', 'b'])).toBe('2 files Claude never edited stay as they are: a and b');
    expect(untouchedSentence(['a', 'b', 'c', 'd', 'e'])).toBe('5 files Claude never edited stay as they are: a, b, c and 2 more');
    expect(listed(['a', 'b', 'c'])).toBe('a, b and c');
  });
  it('files without a shown diff are summarized', () => {
    expect(bytes(12 * 1024)).toBe('12 KB');
    expect(bytes(1536)).toBe('1.5 KB');
    expect(fileChangeSummary({ action: 'modify', binary: true, sizeBefore: 12 * 1024, sizeAfter: 14 * 1024 })).toBe('binary, 12 KB → 14 KB');
    expect(fileChangeSummary({ action: 'create', binary: true, sizeBefore: null, sizeAfter: 300 })).toBe('binary, 300 B');
    expect(fileChangeSummary({ action: 'modify', binary: false, sizeBefore: 1, sizeAfter: 2 }, 1)).toBe('large file: 1 line changed');
    expect(fileChangeSummary({ action: 'modify', binary: false, sizeBefore: 2048, sizeAfter: 1024 }, 5000)).toBe('large file: 5000 lines changed');
    expect(fileChangeSummary({ action: 'delete', binary: false, sizeBefore: 2048, sizeAfter: null })).toBe('2 KB, no diff computed');
  });
});
