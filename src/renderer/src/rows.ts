import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';

export type Row =
  | { kind: 'prompt'; key: string; prompt: TimelinePrompt; lane: number }
  | { kind: 'compaction'; key: string; lane: number; preTokens: number | null; active: boolean }
  | { kind: 'command'; key: string; lane: number; name: string; args: string; active: boolean };

export interface Layout {
  rows: Row[];
  lanes: number;
  /** For each lane: first and last row index (lane 0 spans everything). */
  spans: { first: number; last: number }[];
}

/** Pure: the rows of a timeline in file order, with the lanes a git-graph-like view needs. */
export function layoutRows(t: Timeline): Layout {
  const rows: (Row & { offset: number })[] = [];
  for (const p of t.prompts) rows.push({ kind: 'prompt', key: p.uuid, prompt: p, lane: p.active ? 0 : p.lane, offset: p.byteOffset });
  for (const c of t.compactions) rows.push({ kind: 'compaction', key: c.uuid, lane: 0, preTokens: c.preTokens, active: c.active, offset: c.byteOffset });
  for (const c of t.commands) rows.push({ kind: 'command', key: c.uuid, lane: 0, name: c.name, args: c.args, active: c.active, offset: c.byteOffset });
  rows.sort((a, b) => a.offset - b.offset);
  let lanes = 1;
  for (const r of rows) lanes = Math.max(lanes, r.lane + 1);
  const spans = Array.from({ length: lanes }, () => ({ first: -1, last: -1 }));
  rows.forEach((r, i) => {
    const s = spans[r.lane]!;
    if (s.first === -1) s.first = i;
    s.last = i;
  });
  if (rows.length) spans[0] = { first: 0, last: rows.length - 1 };
  return { rows, lanes, spans };
}
