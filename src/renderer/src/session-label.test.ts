import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../shared/session-schema.js';
import { sessionLabel } from './session-label.js';

const session = (id: string, title: string, forkOf: string | null = null): SessionSummary => ({
  id, agent: 'claude', title, cwd: '/p', projectDir: '/c/p', transcriptPath: `/c/p/${id}.jsonl`, promptCount: 3, firstPrompt: title, lastPrompt: title,
  createdAt: null, lastActivity: '2026-01-01T00:00:00Z', sizeBytes: 1, version: null, live: false, forkOf,
});

describe('session labels', () => {
  const original = session('aaaaaaaa-1111', 'Add a login form');
  const fork = session('bbbbbbbb-2222', 'Add a login form', 'aaaaaaaa-1111');
  const byId = new Map([original, fork].map((s) => [s.id, s]));
  it('a fork does not look like its original', () => {
    expect(sessionLabel(original, {}, byId).text).toBe('Add a login form');
    expect(sessionLabel(fork, {}, byId).text).toBe('↳ fork of Add a login form');
    expect(sessionLabel(fork, {}, byId).hover).toContain('Forked from Add a login form (aaaaaaaa-1111)');
  });
  it('a fork made from the window says where it was cut', () => {
    expect(sessionLabel({ ...fork, forkAt: 3 }, {}, byId).text).toBe('↳ fork at #3 of Add a login form');
  });
  it('a fork of a session not listed names it by its id', () => {
    expect(sessionLabel(fork, {}, new Map()).text).toBe('↳ fork of aaaaaaaa');
  });
  it("the user's name wins, and a renamed original renames the fork's label", () => {
    expect(sessionLabel(fork, { 'bbbbbbbb-2222': 'try B' }, byId)).toMatchObject({ text: 'try B', named: true });
    expect(sessionLabel(fork, { 'aaaaaaaa-1111': 'login' }, byId).text).toBe('↳ fork of login');
  });
  it('one line, whatever the title holds', () => {
    expect(sessionLabel(session('c', 'two\nlines'), {}, new Map()).text).toBe('two lines');
  });
});
