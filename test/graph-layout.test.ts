import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRewound } from '../bench/generate-rewound.js';
import { parseTranscriptFile } from '../src/engine/agents/claude/parse-transcript.js';
import { toTimeline } from '../src/engine/agents/claude/timeline.js';
import { DEFAULT_LAYOUT, layoutRows, type LayoutOptions } from '../src/renderer/src/rows.js';
import { BRANCHED, tempDir } from './fixtures.js';

// The window's graph layout on sessions the engine parsed (the renderer's own tests cannot read files).
const opts = (o: Partial<LayoutOptions> = {}): LayoutOptions => ({ ...DEFAULT_LAYOUT, collapseThreshold: Infinity, ...o });

describe('layoutRows on parsed sessions', () => {
  it('names the branch point of each branch (the live prompt it left from)', async () => {
    const t = toTimeline(await parseTranscriptFile(BRANCHED));
    const l = layoutRows(t, DEFAULT_LAYOUT);
    const b = l.branches.get(t.prompts[2]!.uuid)!;
    expect(b.branchPoint).toBe(t.prompts[1]!.uuid);
    expect(b.prompts).toEqual([t.prompts[2]!.uuid, t.prompts[3]!.uuid]);
    expect(l.branchOf.get(t.prompts[3]!.uuid)).toBe(b.id);
  });

  it('10,000 messages with 275 native rewinds: a narrow graph, every prompt on a row, branches collapsed', async () => {
    const file = join(await tempDir(), 'rewound.jsonl');
    const want = await generateRewound(file, { messages: 10_000, rewinds: 275 });
    const t = toTimeline(await parseTranscriptFile(file));
    const all = layoutRows(t, opts());
    expect(all.lanes).toBeLessThanOrEqual(DEFAULT_LAYOUT.maxLanes);
    expect(all.rows.filter((r) => r.kind === 'prompt')).toHaveLength(want.prompts);
    expect(all.rows.some((r) => r.kind === 'fold')).toBe(false);
    const def = layoutRows(t, { ...DEFAULT_LAYOUT, expanded: new Set() });
    expect(def.collapsedByDefault).toBe(true);
    const collapsed = def.rows.filter((r) => r.kind === 'branch');
    expect(collapsed.reduce((n, r) => n + (r.kind === 'branch' ? r.prompts : 0), 0)).toBe(want.abandonedPrompts);
    expect(def.rows.filter((r) => r.kind === 'prompt')).toHaveLength(want.livePrompts);
  }, 30_000);
});
