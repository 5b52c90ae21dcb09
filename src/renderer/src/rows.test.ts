import { describe, expect, it } from 'vitest';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { DEFAULT_LAYOUT, layoutRows, type LayoutOptions } from './rows.js';

const opts = (o: Partial<LayoutOptions> = {}): LayoutOptions => ({ ...DEFAULT_LAYOUT, collapseThreshold: Infinity, ...o });

/** A timeline of prompts in file order: '-' live, a letter: on the abandoned branch of that name. */
function timelineOf(spec: string): Timeline {
  const lanes = new Map<string, number>();
  let live = 0;
  const prompts = [...spec].map((c, i): TimelinePrompt => {
    const active = c === '-';
    if (!active && !lanes.has(c)) lanes.set(c, lanes.size + 1);
    return {
      uuid: `p${i}`, index: i + 1, number: active ? ++live : null, text: `prompt ${i}`, images: 0, timestamp: null, byteOffset: i * 100, byteLength: 100, line: i + 1, active,
      parentUuid: null, promptId: null, lane: active ? 0 : lanes.get(c)!, forkPoint: active ? null : `fork-${c}`,
      turn: { assistantMessages: 0, toolCalls: [], filesTouched: [], inputTokens: 0, outputTokens: 0, durationMs: null, messageCount: 1 }, nativeCheckpoint: null, checkpoint: null,
    };
  });
  // Each branch left from the live prompt before its first prompt.
  const after = (c: string) => {
    const first = spec.indexOf(c);
    const live = spec.lastIndexOf('-', first);
    return live === -1 ? null : `p${live}`;
  };
  const branches = [...lanes.keys()].map((c) => ({ forkPoint: `fork-${c}`, afterPromptUuid: after(c), liveChild: null, deadRoots: [] }));
  return {
    session: { id: 's', agent: 'claude', title: 't', cwd: null, transcriptPath: '/t.jsonl', version: null, gitBranch: null, sizeBytes: 0, firstTimestamp: null, lastTimestamp: null, readOnly: null },
    prompts, commands: [], compactions: [], branches, subagents: [], activeLeaf: null,
    stats: { lines: 0, messages: 0, prompts: prompts.length, activePrompts: live, deadPrompts: prompts.length - live }, issues: [],
  };
}
const lanesOf = (t: Timeline, o = opts()) => layoutRows(t, o).rows.map((r) => (r.kind === 'prompt' ? r.lane : r.kind));

describe('layoutRows', () => {
  it('frees a lane where its branch ends and gives it to the next one', () => {
    expect(lanesOf(timelineOf('-aa-bb-c-'))).toEqual([0, 1, 1, 0, 1, 1, 0, 1, 0]);
  });

  it('gives overlapping branches their own lanes, and draws lines only where a branch runs', () => {
    const l = layoutRows(timelineOf('-ab-ab-'), opts());
    expect(l.rows.map((r) => (r.kind === 'prompt' ? r.lane : -1))).toEqual([0, 1, 2, 0, 1, 2, 0]);
    expect(l.lanes).toBe(3);
    // Both leave from #1 (row 0): a curve from its dot into each lane.
    expect([...l.leaves]).toEqual([6, 0, 0, 0, 0, 0, 0]);
    expect([...l.starts]).toEqual([0, 0, 0, 0, 0, 0, 0]);
    // lane 1 (bit 2) runs from row 0 down to row 4; lane 2 (bit 4) from row 0 to row 5.
    expect([...l.bottom].map((b) => b & 6)).toEqual([0, 6, 6, 6, 4, 0, 0]);
    expect([...l.top].map((b) => b & 6)).toEqual([0, 6, 6, 6, 6, 4, 0]);
    expect(l.top[0]).toBe(0);
    expect(l.bottom[6]).toBe(0);
  });

  it('draws a branch from the live prompt it left from, even rows above its own first row', () => {
    // b left from #1 (row 0) too, but its prompts come after a's in the file.
    const t = timelineOf('-aab-');
    t.branches[1]!.afterPromptUuid = 'p0';
    const l = layoutRows(t, opts());
    expect(l.rows.map((r) => (r.kind === 'prompt' ? r.lane : -1))).toEqual([0, 1, 1, 2, 0]);
    expect(l.leaves[0]).toBe(2 | 4);
    // b's lane (bit 4) passes rows 1 and 2 on its way to its dot in row 3.
    expect([...l.top].map((b) => b & 4)).toEqual([0, 4, 4, 4, 0]);
    expect([...l.bottom].map((b) => b & 4)).toEqual([0, 4, 4, 0, 0]);
    // A branch before the first prompt has no branch point: it starts at its own row.
    const before = layoutRows(timelineOf('a-'), opts());
    expect(before.starts[0]).toBe(2);
    expect(before.leaves[0]).toBe(0);
  });

  it('folds branches past the width cap into one "+n branches" row, and opens it on demand', () => {
    const t = timelineOf('-abcde-abcde-');
    const l = layoutRows(t, opts({ maxLanes: 4 }));
    expect(l.lanes).toBe(4);
    const fold = l.rows.find((r) => r.kind === 'fold');
    expect(fold).toMatchObject({ kind: 'fold', branches: ['p4', 'p5'], prompts: 4 });
    expect(l.rows.filter((r) => r.kind === 'prompt').map((r) => r.key)).not.toContain('p4');
    expect(l.branches.get('p4')).toMatchObject({ lane: -1, fold: 'p4' });
    const open = layoutRows(t, opts({ maxLanes: 4, openFolds: new Set(['p4']) }));
    expect(open.rows.some((r) => r.kind === 'fold')).toBe(false);
    expect(open.lanes).toBe(6);
    expect(open.rows.filter((r) => r.kind === 'prompt')).toHaveLength(13);
  });

  it('collapses every abandoned branch past the threshold to one row with its prompt count; expands one', () => {
    const t = timelineOf('-aaa-b-c-');
    const l = layoutRows(t, opts({ collapseThreshold: 2 }));
    expect(l.collapsedByDefault).toBe(true);
    expect(l.rows.map((r) => r.kind)).toEqual(['prompt', 'branch', 'prompt', 'branch', 'prompt', 'branch', 'prompt']);
    expect(l.rows[1]).toMatchObject({ kind: 'branch', branch: 'p1', prompts: 3, lane: 1, text: 'prompt 1' });
    const e = layoutRows(t, opts({ collapseThreshold: 2, expanded: new Set(['p1']) }));
    expect(e.rows.map((r) => r.kind)).toEqual(['prompt', 'prompt', 'prompt', 'prompt', 'prompt', 'branch', 'prompt', 'branch', 'prompt']);
    // Below the threshold nothing is collapsed unless asked.
    expect(layoutRows(t, opts({ collapseThreshold: 3 })).rows.every((r) => r.kind === 'prompt')).toBe(true);
    expect(layoutRows(t, opts({ collapseThreshold: 3, collapsed: new Set(['p5']) })).rows.filter((r) => r.kind === 'branch')).toHaveLength(1);
  });

});
