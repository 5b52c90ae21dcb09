import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

// Planted secrets of every documented kind (made-up values of the right shapes).
const PLANTED: Array<[string, string, string]> = [
  ['Anthropic key', 'export ANTHROPIC=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', 'sk-ant-api03'],
  ['OpenAI key', 'key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef123456', 'sk-proj-ABCDEF'],
  ['AWS access key', 'aws AKIAIOSFODNN7EXAMPLE done', 'AKIAIOSFODNN7EXAMPLE'],
  ['GitHub token', 'token ghp_0123456789abcdefghijABCDEFGHIJ0123456789 ok', 'ghp_0123456789'],
  ['GitLab token', 'glpat-abcdefghij0123456789XY', 'glpat-abcdef'],
  ['Slack token', 'xoxb-1234567890-abcdefghij', 'xoxb-1234567890'],
  ['Google API key', 'AIzaSyA1234567890abcdefghijklmnopqrstuv', 'AIzaSyA123'],
  ['Stripe key', 'sk_live_0123456789abcdefABCDEF', 'sk_live_0123'],
  ['npm token', 'npm_abcdefghijklmnopqrstuvwxyz0123456789', 'npm_abcdefghij'],
  ['JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'dozjgNryP4J3'],
  ['bearer token', 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345', 'abcdefghijklmnopqrstuvwxyz012345'],
  ['password in URL', 'postgres://admin:hunter2secret@db.local:5432/app', 'hunter2secret'],
  ['secret assignment', 'DB_PASSWORD="correct-horse-battery"', 'correct-horse-battery'],
];

describe('redact', () => {
  it.each(PLANTED)('removes a planted %s', (name, text, secret) => {
    const r = redact(text);
    expect(r.text).not.toContain(secret);
    expect(r.text).toContain('[REDACTED');
    expect(Object.keys(r.found)).toContain(name);
  });

  it('removes a whole private key block and keeps what is around it', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----';
    const r = redact(`before\n${key}\nafter`);
    expect(r.text).toBe('before\n[REDACTED private key]\nafter');
  });

  it('keeps the name of an assigned secret and leaves ordinary code alone', () => {
    expect(redact('API_KEY=abcdef123456789').text).toBe('API_KEY=[REDACTED secret assignment]');
    expect(redact('"client_secret": "s3cr3t-value-here"').text).toBe('"client_secret": [REDACTED secret assignment]');
    const code = 'const tokenCount = items.length; // sort by key\nfunction password() { return prompt(); }\nsk-learn is a library';
    expect(redact(code)).toEqual({ text: code, found: {} });
  });
});
