import { describe, expect, it } from 'vitest';
import { absTime, relTime } from './format.js';

describe('one time format', () => {
  const now = Date.parse('2026-06-15T12:00:00Z');
  const ago = (ms: number) => new Date(now - ms).toISOString();
  it('is relative at every distance (never a bare date)', () => {
    expect(relTime(ago(10_000), now)).toBe('just now');
    expect(relTime(ago(5 * 60_000), now)).toBe('5 min ago');
    expect(relTime(ago(3 * 3600_000), now)).toBe('3 h ago');
    expect(relTime(ago(4 * 86400_000), now)).toBe('4 d ago');
    expect(relTime(ago(65 * 86400_000), now)).toBe('2 mo ago');
    expect(relTime(ago(800 * 86400_000), now)).toBe('2 y ago');
    expect(relTime(null, now)).toBe('');
    expect(relTime('not a date', now)).toBe('');
  });
  it('gives the absolute local time for the hover, with the year', () => {
    expect(absTime('2025-09-03T10:20:00Z')).toMatch(/2025/);
    expect(absTime(null)).toBe('');
  });
});
