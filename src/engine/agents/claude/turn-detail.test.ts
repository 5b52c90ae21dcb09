import { describe, expect, it } from 'vitest';
import { SUBAGENT } from '../../../../test/fixtures.js';
import { parseTranscriptFile } from './parse-transcript.js';
import { turnDetail } from './turn-detail.js';

describe('turn detail', () => {
  it("a subagent's item shows what it did, from its own transcript, and what it was asked", async () => {
    const model = await parseTranscriptFile(SUBAGENT);
    const prompt = model.prompts.find((p) => p.text.startsWith('SPAWN'))!;
    const turn = await turnDetail(model, prompt.uuid);
    const sub = turn.items.filter((i) => i.kind === 'subagent');
    expect(sub).toHaveLength(1);
    const run = model.subagents[0]!;
    expect(sub[0]!.body).toContain(`in ${run.transcriptPath}`);
    expect(sub[0]!.body).toMatch(/Tool calls:\n {2}Write \S*sub\.txt/);
    expect(sub[0]!.body).toMatch(/Said last: \S/);
    expect(sub[0]!.body).toContain('Asked:');
  });
});
