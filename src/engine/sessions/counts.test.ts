import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRewound } from '../../../bench/generate-rewound.js';
import { BRANCHED, LINEAR, tempDir } from '../../../test/fixtures.js';
import { parseTranscriptFile } from '../agents/claude/parse-transcript.js';
import { toTimeline } from '../agents/claude/timeline.js';
import { sessionCounts } from './counts.js';
import { describeCounts } from '../../shared/session-counts.js';

describe('sessionCounts', () => {
  it('names the live prompts, the abandoned ones and the branch points of a real rewound session', async () => {
    const c = sessionCounts(await parseTranscriptFile(BRANCHED));
    expect(c).toEqual({ livePrompts: 4, abandonedPrompts: 2, branchPoints: 1 });
    expect(describeCounts(c)).toBe('4 prompts on the live path · 2 on abandoned branches · 1 branch point');
    expect(describeCounts(sessionCounts(await parseTranscriptFile(LINEAR)))).toBe('5 prompts on the live path');
  });

  it('agrees with the generator on 10,000 messages with 275 native rewinds, and with the timeline', async () => {
    const file = join(await tempDir(), 'rewound.jsonl');
    const want = await generateRewound(file, { messages: 10_000, rewinds: 275 });
    const model = await parseTranscriptFile(file);
    const c = sessionCounts(model);
    expect(c).toEqual({ livePrompts: want.livePrompts, abandonedPrompts: want.abandonedPrompts, branchPoints: want.branchPoints });
    expect(c.abandonedPrompts).toBeGreaterThan(275);
    const t = toTimeline(model);
    expect([t.stats.activePrompts, t.stats.deadPrompts, t.branches.length]).toEqual([c.livePrompts, c.abandonedPrompts, c.branchPoints]);
  }, 30_000);
});
