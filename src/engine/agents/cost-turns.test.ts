import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscriptFile } from './claude/parse-transcript.js';
import { toTimeline } from './claude/timeline.js';
import { readDroidTimeline } from './droid/discover.js';
import { costReport, formatCost } from '../../shared/insight/cost.js';
import { DEFAULT_PRICE_BOOK } from '../../shared/insight/prices.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures');

describe('cost of turns no prompt holds', () => {
  it('an /init session: the command prompts the model, so it is prompt #1 and its 15 model turns are its turn', async () => {
    const t = toTimeline(await parseTranscriptFile(join(FIXTURES, 'public', 'claude-1.0.98-real-slashcmd-init-tooluse.jsonl')));
    expect(t.prompts.map((p) => [p.number, p.text])).toEqual([[1, '/init']]);
    expect(t.commands).toEqual([]);
    expect(t.prompts[0]!.turn.model).toMatch(/^claude-/);
    const r = costReport(t, DEFAULT_PRICE_BOOK);
    // The fixture's usage fields, one count per API response (its 15 assistant lines are 7 responses).
    expect(r.session.tokens).toEqual({ input: 93, output: 268, cacheRead: 103_219, cacheWrite: 12_698 });
    expect(r.live).toEqual(r.session);
    expect(formatCost(r.session)).not.toBe('0 tokens');
  });

  it('a Droid session shows the totals its .settings.json keeps', async () => {
    const t = await readDroidTimeline(join(FIXTURES, 'droid-real', '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e.jsonl'));
    expect(t.session.tokens).toEqual({ input: 90, output: 45 });
    const r = costReport(t, DEFAULT_PRICE_BOOK);
    expect(r.session.tokens.input + r.session.tokens.output).toBe(135);
    expect(formatCost(r.session)).toBe('135 tokens');
  });
});
