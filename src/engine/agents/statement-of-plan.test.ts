import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../../../test/fixtures.js';
import { planQwenCut } from './qwen/rewind.js';
import { qwenTimeline } from './qwen/parse.js';
import { statementOfPlan, type PromptBefore } from './statement-of-plan.js';

const P = (uuid: string, live: boolean, number: number | null = null): PromptBefore => ({ uuid, text: uuid, images: 0, timestamp: null, live, number });

describe('statementOfPlan (pure): every prompt the result no longer holds, in exactly one list', () => {
  // Live 1 2 3 4; abandoned a1 a2 (branch off 2, target's own), b1 (another branch).
  const before = [P('1', true, 1), P('2', true, 2), P('a1', false), P('a2', false), P('b1', false), P('3', true, 3), P('4', true, 4)];
  it('in place at an abandoned prompt: live ones left out, its branch after it, the other branch removed or kept', () => {
    const base = { mode: 'in-place' as const, before, target: 'a1', onTargetBranch: (u: string) => u === 'a2', handedBack: ['a1'], leftOutMessages: 0 };
    const removed = statementOfPlan({ ...base, result: { holds: new Set(['1', '2']), live: ['1', '2'] } });
    expect(removed.keptEnd?.uuid).toBe('2');
    expect(removed.droppedLive.map((p) => [p.uuid, p.number])).toEqual([['3', 3], ['4', 4]]);
    expect(removed.droppedBranch.map((p) => p.uuid)).toEqual(['a2']);
    expect(removed.droppedOther.map((p) => p.uuid)).toEqual(['b1']);
    expect(removed.keptAbandoned).toBe(0);
    const kept = statementOfPlan({ ...base, result: { holds: new Set(['1', '2', 'b1', '3', '4']), live: ['1', '2'] } });
    expect(kept.droppedOther).toEqual([]);
    expect(kept.keptAbandoned).toBe(1);
  });
  it('a fork names no other branch: the original keeps it', () => {
    const s = statementOfPlan({ mode: 'fork', before, target: '3', onTargetBranch: () => false, handedBack: ['3', '4'], leftOutMessages: 2, result: { holds: new Set(['1', '2']), live: ['1', '2'] } });
    expect([s.droppedLive.map((p) => p.uuid), s.droppedBranch, s.droppedOther, s.keptAbandoned, s.targetLive]).toEqual([['3', '4'], [], [], 0, true]);
  });
});

describe("Qwen's plan on a real branched session (pure: bytes in, plan out)", () => {
  const path = join(FIXTURES, 'qwen-real', 'inplace-branch-ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl');
  const buf = readFileSync(path);
  const t = qwenTimeline(buf, path);
  const uuidOf = (text: string) => t.prompts.find((p) => p.text === text)!.uuid;
  it('in place at live #3 keeps the abandoned branch before it, ends on a rewind record, and says so', () => {
    const plan = planQwenCut(buf, path, { promptUuid: uuidOf('branch prompt') }, new Date('2026-11-25T00:00:00Z'));
    const s = plan.statementFor!('in-place');
    expect(s.droppedLive.map((p) => [p.number, p.text])).toEqual([[3, 'branch prompt'], [4, 'PROBE-1rsbx7x5rtl']]);
    expect(s.droppedOther).toEqual([]);
    expect(s.keptAbandoned).toBe(4);
    const last = JSON.parse(plan.inPlace.toString('utf8').trim().split('\n').pop()!) as { type: string; subtype: string; parentUuid: string };
    expect([last.type, last.subtype, last.parentUuid]).toEqual(['system', 'rewind', t.prompts.find((p) => p.text === 'branch prompt')!.parentUuid]);
    const after = qwenTimeline(plan.inPlace, path);
    expect(after.prompts.filter((p) => p.active).map((p) => p.text)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two']);
    expect(after.prompts.filter((p) => !p.active)).toHaveLength(4);
  });
  it('in place at live #2 removes the branch below it and names each of its prompts', () => {
    const s = planQwenCut(buf, path, { promptUuid: uuidOf('WRITE a.txt version two') }).statementFor!('in-place');
    expect(s.droppedOther.map((p) => p.text)).toEqual(['BASH echo bashmade > c.txt', 'EDIT notes.md alpha gamma', 'just chatting', 'PROBE-zga02l084oq']);
    expect(s.droppedLive.map((p) => p.number)).toEqual([2, 3, 4]);
  });
});
