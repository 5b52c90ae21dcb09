import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../shared/session-schema.js';
import type { JournalRecord } from './record.js';
import { annotateSessions } from './session-annotations.js';

const session = (id: string, size = 10): SessionSummary => ({
  id, agent: 'claude', title: 't', cwd: '/p', projectDir: '/c/p', transcriptPath: `/c/p/${id}.jsonl`, promptCount: 1, firstPrompt: null, lastPrompt: null,
  createdAt: null, lastActivity: '2026-01-01T00:00:00Z', sizeBytes: size, version: null, live: true, forkOf: null,
});
const fp = (size: number) => ({ size, head: 'h', tail: 't' });
const fork = (forkSessionId: string, promptNumber?: number): JournalRecord => ({
  kind: 'fork', id: `j-${forkSessionId}`, time: '2026-01-01T00:00:00Z', transcript: '/c/p/orig.jsonl', sessionId: 'orig', forkPath: `/c/p/${forkSessionId}.jsonl`,
  forkSessionId, fileHistoryDir: null, result: fp(10), boundaryOffset: 5, prompts: ['u3'], ...(promptNumber ? { promptNumber } : {}),
});

describe('sessions annotated from the journal', () => {
  it('a fork knows its original and, when the window made it, the prompt it was cut before', () => {
    const [orig, a, b] = annotateSessions([session('orig'), session('a'), session('b')], [fork('a', 3), fork('b')]);
    expect(orig).toMatchObject({ forkOf: null, forkAt: null });
    expect(a).toMatchObject({ forkOf: 'orig', forkAt: 3 });
    expect(b).toMatchObject({ forkOf: 'orig', forkAt: null });
  });
  it('a fork still exactly as we wrote it is not live; once the agent writes to it, it is', () => {
    const [still, grown] = annotateSessions([session('a', 10), session('b', 99)], [fork('a'), fork('b')]);
    expect(still!.live).toBe(false);
    expect(grown!.live).toBe(true);
  });
});
