import { diff3Merge, diffIndices } from 'node-diff3';

/**
 * A revert conflict as three texts side by side: the file before prompt #n, as #n left it, and now.
 * Pure: the regions node-diff3 cannot merge (now against before, from what #n left), each line marked
 * by who changed it: `n` (prompt #n: the line differs between before and #n's version), `later` (a
 * later change: it differs between #n's version and now), `both`. Around each region, a few lines
 * of each file at the same place; the rest folded.
 */
export type Mark = 'n' | 'later' | 'both' | null;

export interface Cell {
  /** 1-based line number in its own file. */
  no: number;
  text: string;
  mark: Mark;
}

/** One line of context: each file's own line at that place (null: the file has none there). */
export interface ContextRow {
  before: Cell | null;
  after: Cell | null;
  now: Cell | null;
}

export type Block =
  | { kind: 'context'; rows: ContextRow[] }
  /** Lines between regions, not drawn (counted in the file as it is now): they revert cleanly or did not change. */
  | { kind: 'fold'; lines: number }
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
  /** Lines prompt #n changed and lines changed since, in the regions shown. */
  byPrompt: number;
  later: number;
}

export function threeWay(beforeText: string | null, afterText: string | null, nowText: string | null, context = 2): ThreeWay {
  const [b, o, a] = [lines(beforeText), lines(afterText), lines(nowText)];
  const byN = changed(o, b);
  const byLater = changed(o, a);
  const cell = (text: string, i: number, mark: Mark): Cell => ({ no: i + 1, text, mark });
  const markO = (i: number): Mark => (byN.inX.has(i) ? (byLater.inX.has(i) ? 'both' : 'n') : byLater.inX.has(i) ? 'later' : null);
  const at = (f: string[], i: number): Cell | null => (i >= 0 && i < f.length ? cell(f[i]!, i, null) : null);
  /** `n` rows of each file from its own position (before, after, now). */
  const rows = (pos: [number, number, number], n: number): ContextRow[] => Array.from({ length: n }, (_, k) => ({ before: at(b, pos[0] + k), after: at(o, pos[1] + k), now: at(a, pos[2] + k) }));
  const blocks: Block[] = [];
  let byPrompt = 0;
  let later = 0;
  const conflicts = diff3Merge(a, o, b, { excludeFalseConflicts: true })
    .filter((r) => r.conflict)
    .map((r) => r.conflict!);
  // Where the previous region ended in each file (before, after, now).
  let end: [number, number, number] | null = null;
  const push = (block: Block) => {
    if (block.kind === 'context' && block.rows.length === 0) return;
    if (block.kind === 'fold' && block.lines <= 0) return;
    blocks.push(block);
  };
  for (const c of conflicts) {
    const start: [number, number, number] = [c.bIndex, c.oIndex, c.aIndex];
    const gap = c.aIndex - (end ? end[2] : 0);
    if (!end) {
      const n = Math.min(gap, context);
      push({ kind: 'fold', lines: gap - n });
      push({ kind: 'context', rows: rows([start[0] - n, start[1] - n, start[2] - n], n) });
    } else if (gap <= 2 * context + 1) {
      push({ kind: 'context', rows: rows(end, gap) });
    } else {
      push({ kind: 'context', rows: rows(end, context) });
      push({ kind: 'fold', lines: gap - 2 * context });
      push({ kind: 'context', rows: rows([start[0] - context, start[1] - context, start[2] - context], context) });
    }
    const before = c.b.map((t, i) => cell(t, c.bIndex + i, byN.inY.has(c.bIndex + i) ? 'n' : null));
    const after = c.o.map((t, i) => cell(t, c.oIndex + i, markO(c.oIndex + i)));
    const now = c.a.map((t, i) => cell(t, c.aIndex + i, byLater.inY.has(c.aIndex + i) ? 'later' : null));
    // Lines #n wrote, or (where it only deleted) the lines it took out.
    byPrompt += Math.max(after.filter((x) => x.mark === 'n' || x.mark === 'both').length, before.filter((x) => x.mark === 'n').length);
    later += now.filter((x) => x.mark === 'later').length;
    blocks.push({ kind: 'conflict', before, after, now });
    end = [c.bIndex + c.b.length, c.oIndex + c.o.length, c.aIndex + c.a.length];
  }
  if (end) {
    const rest = a.length - end[2];
    const n = Math.min(rest, context);
    push({ kind: 'context', rows: rows(end, n) });
    push({ kind: 'fold', lines: rest - n });
  }
  return { blocks, byPrompt, later };
}
