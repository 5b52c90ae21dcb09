import { describe, expect, it } from 'vitest';
import { CC_HOME } from '../../../../test/fixtures.js';
import { listTranscriptFiles } from './discover.js';
import { searchPrompts } from './search.js';

describe('searching prompts across sessions', () => {
  it('finds human prompts only, case-insensitively, with a snippet', async () => {
    const files = await listTranscriptFiles(CC_HOME);
    const r = await searchPrompts(files, 'notes.MD');
    expect(r.matches.map((m) => m.sessionId).sort()).toEqual(['2ea8980a-26fe-4928-aab5-4ebf6074b664', 'ec33f68b-d266-42d6-b76a-6c2b9bb6c0ae']);
    expect(r.matches[0]!.snippet).toContain('EDIT notes.md alpha gamma');
    // Tool results and injected text mention "a.txt" too; only prompts count.
    const a = await searchPrompts(files, 'a.txt has been updated');
    expect(a.matches).toEqual([]);
    expect((await searchPrompts(files, '   ')).matches).toEqual([]);
  });

  it('stops at its byte budget and says so', async () => {
    const files = await listTranscriptFiles(CC_HOME);
    const r = await searchPrompts(files, 'WRITE', { maxBytes: 1 });
    expect(r).toEqual({ matches: [], truncated: true });
  });
});
