import { describe, expect, it } from 'vitest';
import { sshSummary } from './ssh-summary.js';

describe('ssh failures in one sentence', () => {
  it('names what to do for the usual failures, the raw output kept', () => {
    const raw = 'ssh: Could not resolve hostname nohost.invalid: Name or service not known\r\n';
    expect(sshSummary(raw)).toEqual({ text: expect.stringMatching(/^The host name could not be found/), detail: raw.trim() });
    expect(sshSummary('user@h: Permission denied (publickey).').text).toMatch(/could not log in/);
    expect(sshSummary('bash: line 1: rewind-app: command not found').text).toMatch(/not installed on the host/);
  });
  it('keeps an unknown message short, its whole text behind it', () => {
    expect(sshSummary('something odd')).toEqual({ text: 'something odd', detail: null });
    const long = `${'x'.repeat(200)}\nmore`;
    const s = sshSummary(long);
    expect(s.text.length).toBe(160);
    expect(s.detail).toBe(long);
  });
});
