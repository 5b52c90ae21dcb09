import { diff3Merge, diffIndices } from 'node-diff3';

/**
 * A revert conflict as three texts side by side: the file before prompt #n, as #n left it, and now.
 * Pure: the regions node-diff3 cannot merge (now against before, from what #n left), each line marked
 * by who changed it: `n` (prompt #n: the line differs between before and #n's version), `later` (a
 * later change: it differs between #n's version and now), `both`.
 */
export type Mark = 'n' | 'later' | 'both' | null;

export interface Cell {
  /** 1-based line number in its own file. */
  no: number;
  text: string;
  mark: Mark;
}

export type Block =
  /** Lines outside the conflicts, from the file as it is now (they revert cleanly or did not change): `folded` of them between `above` and `below`. */
  | { kind: 'context'; above: Cell[]; folded: number; below: Cell[] }
  | { kind: 'conflict'; before: Cell[]; after: Cell[]; now: Cell[] };

const lines = (t: string | null): string[] => {
  if (t === null || t === '') return [];
  const l = t.split('\n');
  if (l.at(-1) === '') l.pop();
  return l;
};

/** Which lines of `x` a diff against `y` says changed, as a set of 0-based indices. */
function changed(x: string[], y: string[]): { inX: Set<number>; inY: Set<number> } {
  const inX = new Set<number>();
  const inY = new Set<number>();
  for (const d of diffIndices(x, y)) {
    for (let i = 0; i < d.buffer1[1]; i++) inX.add(d.buffer1[0] + i);
    for (let i = 0; i < d.buffer2[1]; i++) inY.add(d.buffer2[0] + i);
  }
  return { inX, inY };
}

export interface ThreeWay {
  blocks: Block[];
  /** Lines prompt #n changed (in its version) and lines changed since (now), in the conflicts shown. */
  byPrompt: number;
  later: number;
}

export function threeWay(beforeText: string | null, afterText: string | null, nowText: string | null, context = 2): ThreeWay {
  const [b, o, a] = [lines(beforeText), lines(afterText), lines(nowText)];
  const byN = changed(o, b);
  const byLater = changed(o, a);
  const cell = (text: string, i: number, mark: Mark): Cell => ({ no: i + 1, text, mark });
  const markO = (i: number): Mark => (byN.inX.has(i) ? (byLater.inX.has(i) ? 'both' : 'n') : byLater.inX.has(i) ? 'later' : null);
  const blocks: Block[] = [];
  let byPrompt = 0;
  let later = 0;
  let nowAt = 0;
  const regions = diff3Merge(a, o, b, { excludeFalseConflicts: true });
  const conflicts = regions.filter((r) => r.conflict).map((r) => r.conflict!);
  // The conflicts are located in the file as it is now: what lies between them is context.
  const pushContext = (from: number, to: number, where: 'start' | 'middle' | 'end') => {
    if (to <= from) return;
    const all = a.slice(from, to).map((t, k) => cell(t, from + k, null));
    const above = where === 'start' ? [] : where === 'end' || all.length > 2 * context + 1 ? all.slice(0, context) : all;
    const below = where === 'end' || above.length === all.length ? [] : all.slice(-context);
    blocks.push({ kind: 'context', above, folded: all.length - above.length - below.length, below });
  };
  conflicts.forEach((c, k) => {
    pushContext(nowAt, c.aIndex, k === 0 ? 'start' : 'middle');
    const before = c.b.map((t, i) => cell(t, c.bIndex + i, byN.inY.has(c.bIndex + i) ? 'n' : null));
    const after = c.o.map((t, i) => cell(t, c.oIndex + i, markO(c.oIndex + i)));
    const now = c.a.map((t, i) => cell(t, c.aIndex + i, byLater.inY.has(c.aIndex + i) ? 'later' : null));
    // Lines #n wrote, or (where it only deleted) the lines it took out.
    byPrompt += Math.max(after.filter((x) => x.mark === 'n' || x.mark === 'both').length, before.filter((x) => x.mark === 'n').length);
    later += now.filter((x) => x.mark === 'later').length;
    blocks.push({ kind: 'conflict', before, after, now });
    nowAt = c.aIndex + c.a.length;
  });
  if (conflicts.length) pushContext(nowAt, a.length, 'end');
  return { blocks, byPrompt, later };
}
