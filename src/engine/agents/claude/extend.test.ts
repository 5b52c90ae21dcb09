import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRewound } from '../../../../bench/generate-rewound.js';
import { BRANCHED, FIXTURES, LINEAR, SUBAGENT, tempDir } from '../../../../test/fixtures.js';
import type { RawLine } from '../../io/line-splitter.js';
import type { Timeline } from '../../../shared/session-schema.js';
import { readSubagentFiles } from './parse-transcript.js';
import { SessionBuilder, sessionIdFromPath, type SubagentFile } from './session-builder.js';
import { cursorOf, extendTimeline, toTimeline } from './timeline.js';

/** The file's lines as the reader hands them over (offsets, lengths, bytes without the LF). */
async function linesOf(path: string): Promise<RawLine[]> {
  const buf = await readFile(path);
  const out: RawLine[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const end = buf.indexOf(10, offset);
    const stop = end === -1 ? buf.length : end + 1;
    out.push({ index: out.length, offset, length: stop - offset, bytes: buf.subarray(offset, end === -1 ? buf.length : end) });
    offset = stop;
  }
  return out;
}

function fullParse(path: string, lines: RawLine[], n: number, subagentFiles: SubagentFile[]): { timeline: Timeline; leafPrompt: string | null } {
  const b = new SessionBuilder();
  for (let i = 0; i < n; i++) b.addLine(lines[i]!);
  const end = n === 0 ? 0 : lines[n - 1]!.offset + lines[n - 1]!.length;
  const model = b.build({ transcriptPath: path, size: end, endOffset: end, hasPartialLine: false, subagentFiles });
  return { timeline: toTimeline(model), leafPrompt: cursorOf(model).leafPrompt };
}

/**
 * Feeds a transcript to one builder in batches (sizes from `batch`), stepping the model and the
 * timeline incrementally where the builder allows it, and after every batch compares the result
 * with a fresh full parse of the same prefix. Returns what the steps touched.
 */
async function replay(path: string, batch: (step: number) => number) {
  const lines = await linesOf(path);
  const b = new SessionBuilder();
  const subagentFiles = await readSubagentFiles(path, sessionIdFromPath(path));
  const meta = (n: number) => {
    const end = lines[n - 1]!.offset + lines[n - 1]!.length;
    return { transcriptPath: path, size: end, endOffset: end, hasPartialLine: false, subagentFiles };
  };
  let n = Math.min(lines.length, batch(0));
  for (let i = 0; i < n; i++) b.addLine(lines[i]!);
  let model = b.build(meta(n));
  let timeline = toTimeline(model);
  let cursor = cursorOf(model);
  const work = { extends: 0, rebuilds: 0, maxMessagesPerLine: 0, maxPrompts: 0, steps: [] as { lines: number; messages: number; prompts: number }[] };
  for (let step = 1; n < lines.length; step++) {
    const mark = b.mark();
    const take = Math.min(lines.length - n, batch(step));
    for (let i = n; i < n + take; i++) b.addLine(lines[i]!);
    n += take;
    const s = b.extend(model, mark, meta(n));
    if (s) {
      const next = extendTimeline(timeline, cursor, s);
      model = s.model;
      timeline = next.timeline;
      cursor = next.cursor;
      work.extends++;
      const messages = s.messages + s.walked.length;
      work.steps.push({ lines: take, messages, prompts: next.upserts.length });
      work.maxMessagesPerLine = Math.max(work.maxMessagesPerLine, messages / take);
      work.maxPrompts = Math.max(work.maxPrompts, next.upserts.length);
      // The upserts are exactly the prompts whose document changed.
      for (const u of next.upserts) expect(timeline.prompts.find((p) => p.uuid === u.uuid)).toBe(u);
    } else {
      model = b.build(meta(n));
      timeline = toTimeline(model);
      cursor = cursorOf(model);
      work.rebuilds++;
    }
    const full = fullParse(path, lines, n, subagentFiles);
    expect(timeline, `${path} after line ${n}`).toEqual(full.timeline);
    expect(cursor.leafPrompt).toBe(full.leafPrompt);
  }
  return work;
}

const PUBLIC = join(FIXTURES, 'public');
const fixtures = [
  LINEAR,
  BRANCHED,
  SUBAGENT,
  join(PUBLIC, 'claude-SYNTHETIC-rewind-branch-compaction.jsonl'),
  join(PUBLIC, 'claude-1.0.108-real-inline-sidechains.jsonl'),
  join(PUBLIC, 'claude-1.0.98-real-summary-task-subagents.jsonl'),
  join(PUBLIC, 'claude-1.0.98-real-slashcmd-init-tooluse.jsonl'),
  join(PUBLIC, 'claude-2.1.152-real-queueop-lastprompt.jsonl'),
  join(PUBLIC, 'claude-2.0.46-derived-agent-sidechain.jsonl'),
  join(PUBLIC, 'claude-SYNTHETIC-2.1.173-subagents', '55550000-0000-4000-8000-000000000001.jsonl'),
];

describe('incremental model and timeline (SessionBuilder.extend + extendTimeline)', () => {
  for (const f of fixtures) {
    it(`equals a full parse after every line of ${f.split('/').pop()}`, async () => {
      const w = await replay(f, () => 1);
      // One line never makes more than one new message and one step up the live path.
      expect(w.maxMessagesPerLine).toBeLessThanOrEqual(2);
      expect(w.maxPrompts).toBeLessThanOrEqual(2);
      expect(w.extends).toBeGreaterThan(w.rebuilds);
    });
  }

  it('equals a full parse after batches of several lines (seeded sizes 1-7)', async () => {
    let seed = 7;
    const size = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), 1 + (seed % 7));
    for (const f of fixtures) await replay(f, size);
  });

  it('on a generated rewound session: rewinds rebuild, everything else extends, and the work per line stays flat', async () => {
    const path = join(await tempDir(), 'rewound.jsonl');
    const g = await generateRewound(path, { messages: 480, rewinds: 12, seed: 5 });
    expect(g.branchPoints).toBeGreaterThan(3);
    const w = await replay(path, () => 1);
    // Each rewind is one new prompt off the live path: one rebuild; no other line needs one.
    expect(w.rebuilds).toBeLessThanOrEqual(g.abandonedPrompts > 0 ? 12 : 0);
    expect(w.rebuilds).toBeGreaterThan(0);
    // Proportional: the same count of messages and prompts per appended line early and late.
    const early = w.steps.slice(0, 40);
    const late = w.steps.slice(-40);
    const sum = (xs: typeof early, k: 'messages' | 'prompts') => xs.reduce((a, x) => a + x[k], 0);
    expect(sum(late, 'messages')).toBe(sum(early, 'messages'));
    expect(sum(late, 'prompts')).toBeLessThanOrEqual(sum(early, 'prompts') + 2);
  });
});
