import { describe, expect, it } from 'vitest';
import type { CodePlan } from '../../shared/contract.js';
import { isDestructive } from './destructive.js';

const plan = (...actions: ('create' | 'modify' | 'delete')[]): CodePlan => ({
  source: 'rewind', checkpointId: 'c', note: '', projectRoot: '/p', unchanged: 0, untouched: [], skipped: [], conflicts: 0,
  changes: actions.map((action, i) => ({ path: `f${i}`, action, kind: 'f', conflict: null, binary: false, sizeBefore: 1, sizeAfter: 1, patch: null })),
});

describe('destructive confirms are red', () => {
  it('a plain fork adds a session: not destructive', () => {
    expect(isDestructive({ action: 'fork', code: null, force: false })).toBe(false);
  });
  it('a rewrite in place, an override, deleting or overwriting files: destructive', () => {
    expect(isDestructive({ action: 'rewrite', code: null, force: false })).toBe(true);
    expect(isDestructive({ action: 'fork', code: null, force: true })).toBe(true);
    expect(isDestructive({ action: 'restore', code: plan('delete'), force: false })).toBe(true);
    expect(isDestructive({ action: 'fork-restore', code: plan('create', 'modify'), force: false })).toBe(true);
  });
  it('a restore that only puts back deleted files takes nothing away', () => {
    expect(isDestructive({ action: 'restore', code: plan('create'), force: false })).toBe(false);
  });
});
