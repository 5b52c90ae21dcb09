import { describe, expect, it } from 'vitest';
import { plural, restoredSummary } from './wording.js';

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
});
