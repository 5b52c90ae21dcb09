import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';

/**
 * The timeline's rows and its git-graph, laid out by one pure function. Lane 0 is the live path;
 * each abandoned branch gets the lowest lane free where it starts (lanes are freed where a branch
 * ends, so a session rewound hundreds of times still needs only a few). The graph never grows past
 * `maxLanes`: branches that would need more are folded into one "+n branches" row until opened.
 * Abandoned branches can be collapsed to one row holding their prompt count (all of them are, by
 * default, once a session has more than `collapseThreshold`).
 */

export type Row =
  | { kind: 'prompt'; key: string; prompt: TimelinePrompt; lane: number; branch: string | null }
  | { kind: 'compaction'; key: string; lane: number; preTokens: number | null; active: boolean; branch: string | null }
  | { kind: 'command'; key: string; lane: number; name: string; args: string; active: boolean; branch: string | null }
  /** A collapsed abandoned branch. */
  | { kind: 'branch'; key: string; lane: number; branch: string; prompts: number; text: string }
  /** Branches folded away because the graph is at its width cap. */
  | { kind: 'fold'; key: string; lane: number; fold: string; branches: string[]; prompts: number };

export interface BranchInfo {
  id: string;
  /** Its prompts, in file order. */
  prompts: string[];
  /** The live prompt whose turn it branched off (null: before the first prompt). */
  branchPoint: string | null;
  collapsed: boolean;
  /** The lane it is drawn on; -1 while folded. */
  lane: number;
  /** The fold row holding it, while folded. */
  fold: string | null;
}

export interface LayoutOptions {
  /** Graph columns, the live lane included. */
  maxLanes: number;
  /** More abandoned branches than this: all collapsed unless expanded. */
  collapseThreshold: number;
  expanded: ReadonlySet<string>;
  collapsed: ReadonlySet<string>;
  openFolds: ReadonlySet<string>;
}

export const DEFAULT_LAYOUT: LayoutOptions = { maxLanes: 4, collapseThreshold: 12, expanded: new Set(), collapsed: new Set(), openFolds: new Set() };

export interface Layout {
  rows: Row[];
  /** Graph columns in use (lane 0 included). */
  lanes: number;
  /** Per row, a bit per lane: the lane's line runs through the row's upper / lower half. */
  top: Uint32Array;
  bottom: Uint32Array;
  /** Per row, a bit per lane: a branch with no drawn branch point starts here (a curve from the live line above into its dot). */
  starts: Uint32Array;
  /** Per row, a bit per lane: a branch leaves this live prompt (a curve from its dot down into the branch's lane). */
  leaves: Uint32Array;
  branches: Map<string, BranchInfo>;
  /** Branch of each abandoned prompt. */
  branchOf: Map<string, string>;
  /** Row index of each row key. */
  indexOf: Map<string, number>;
  collapsedByDefault: boolean;
}

/** Lanes above this are not drawn (bit masks); far beyond any cap a window would use. */
const HARD_MAX_LANES = 31;

type Item = Exclude<Row, { kind: 'branch' } | { kind: 'fold' }> & { offset: number };

/** Pure: the rows of a timeline in file order with their lanes, folds and collapsed branches. */
export function layoutRows(t: Timeline, opts: LayoutOptions = DEFAULT_LAYOUT): Layout {
  const maxLanes = Math.max(2, Math.min(opts.maxLanes, HARD_MAX_LANES));
  // Abandoned prompts grouped by the branch root the engine found (its `lane` number names it).
  const branchOfLane = new Map<number, string>();
  const branches = new Map<string, BranchInfo>();
  const branchOf = new Map<string, string>();
  const afterOfFork = new Map(t.branches.map((b) => [b.forkPoint, b.afterPromptUuid]));
  for (const p of t.prompts) {
    if (p.active) continue;
    let id = branchOfLane.get(p.lane);
    if (!id) {
      id = p.uuid;
      branchOfLane.set(p.lane, id);
      branches.set(id, { id, prompts: [], branchPoint: p.forkPoint ? (afterOfFork.get(p.forkPoint) ?? null) : null, collapsed: false, lane: -1, fold: null });
    }
    branches.get(id)!.prompts.push(p.uuid);
    branchOf.set(p.uuid, id);
  }
  const promptByUuid = new Map(t.prompts.map((p) => [p.uuid, p]));
  const collapsedByDefault = branches.size > opts.collapseThreshold;
  for (const b of branches.values()) b.collapsed = opts.collapsed.has(b.id) || (collapsedByDefault && !opts.expanded.has(b.id));

  const items: Item[] = [];
  const deadBranchOf = (after: string | null, active: boolean) => (!active && after ? (branchOf.get(after) ?? null) : null);
  for (const p of t.prompts) items.push({ kind: 'prompt', key: p.uuid, prompt: p, lane: 0, branch: branchOf.get(p.uuid) ?? null, offset: p.byteOffset });
  for (const c of t.compactions) items.push({ kind: 'compaction', key: c.uuid, lane: 0, preTokens: c.preTokens, active: c.active, branch: deadBranchOf(c.afterPromptUuid, c.active), offset: c.byteOffset });
  for (const c of t.commands) items.push({ kind: 'command', key: c.uuid, lane: 0, name: c.name, args: c.args, active: c.active, branch: deadBranchOf(c.afterPromptUuid, c.active), offset: c.byteOffset });
  items.sort((a, b) => a.offset - b.offset);

  // Pass 1: rows with collapsed branches as one row each; the span of every branch in them.
  const seq: Row[] = [];
  const span = new Map<string, { first: number; last: number }>();
  for (const it of items) {
    const { offset: _offset, ...row } = it;
    const b = row.branch ? branches.get(row.branch) : undefined;
    if (b?.collapsed) {
      if (span.has(b.id)) continue;
      const first = promptByUuid.get(b.prompts[0]!);
      seq.push({ kind: 'branch', key: `branch:${b.id}`, lane: 0, branch: b.id, prompts: b.prompts.length, text: first?.text ?? '' });
    } else seq.push(row);
    const i = seq.length - 1;
    if (b) {
      const s = span.get(b.id);
      if (s) s.last = i;
      else span.set(b.id, { first: i, last: i });
    }
  }

  // Pass 2: lanes by interval colouring; past the cap, a branch is folded (unless its fold is open).
  // A branch's lane is taken from the live prompt it left from (drawn from there), not from its own first row.
  const seqIndex = new Map<string, number>();
  seq.forEach((r, i) => r.kind === 'prompt' && seqIndex.set(r.key, i));
  const occupiedFrom = (id: string, first: number) => {
    const bp = branches.get(id)!.branchPoint;
    const at = bp ? seqIndex.get(bp) : undefined;
    return at !== undefined && at < first ? at : first;
  };
  const order = [...span.entries()].map(([id, s]) => [id, { ...s, from: occupiedFrom(id, s.first) }] as const).sort((a, b) => a[1].from - b[1].from || a[1].first - b[1].first);
  const laneEnds: number[] = []; // laneEnds[lane] = last row of the branch holding it (-1 free); lane 0 is live
  const folds = new Map<string, { at: number; until: number; branches: string[] }>();
  let openFold: string | null = null;
  for (const [id, s] of order) {
    const b = branches.get(id)!;
    let lane = 1;
    while (lane < laneEnds.length && laneEnds[lane]! >= s.from) lane++;
    if (lane >= maxLanes) {
      // Branches past the cap that overlap form one fold, named by its first branch.
      const current: { until: number } | null = openFold ? folds.get(openFold)! : null;
      const foldId: string = current && s.first <= current.until + 1 ? openFold! : id;
      if (foldId === id) folds.set(id, { at: s.first, until: s.last, branches: [] });
      const f = folds.get(foldId)!;
      f.branches.push(id);
      f.until = Math.max(f.until, s.last);
      openFold = foldId;
      if (!opts.openFolds.has(foldId) || lane >= HARD_MAX_LANES) {
        b.fold = foldId;
        continue;
      }
    }
    b.lane = lane;
    laneEnds[lane] = s.last;
  }

  // Pass 3: the final rows (folded branches replaced by their fold row), then the rails.
  const rows: Row[] = [];
  const foldAt = new Map([...folds].filter(([id]) => [...branches.values()].some((b) => b.fold === id)).map(([id, f]) => [f.at, id]));
  for (let i = 0; i < seq.length; i++) {
    const fid = foldAt.get(i);
    if (fid) {
      const f = folds.get(fid)!;
      rows.push({ kind: 'fold', key: `fold:${fid}`, lane: 0, fold: fid, branches: f.branches, prompts: f.branches.reduce((n, id) => n + branches.get(id)!.prompts.length, 0) });
    }
    const r = seq[i]!;
    const id = r.kind === 'branch' ? r.branch : r.kind === 'fold' ? null : r.branch;
    const b = id ? branches.get(id) : undefined;
    if (b?.fold) continue;
    rows.push(b ? { ...r, lane: b.lane } : r);
  }
  const n = rows.length;
  const top = new Uint32Array(n);
  const bottom = new Uint32Array(n);
  const starts = new Uint32Array(n);
  const leaves = new Uint32Array(n);
  const indexOf = new Map<string, number>();
  const spans = new Map<string, { first: number; last: number }>();
  rows.forEach((r, i) => {
    indexOf.set(r.key, i);
    if (i > 0) top[i]! |= 1;
    if (i < n - 1) bottom[i]! |= 1;
    const id = r.kind === 'branch' ? r.branch : r.kind === 'fold' ? null : r.branch;
    if (!id) return;
    const s = spans.get(id);
    if (s) s.last = i;
    else spans.set(id, { first: i, last: i });
  });
  let lanes = 1;
  for (const [id, s] of spans) {
    const bit = 1 << branches.get(id)!.lane;
    lanes = Math.max(lanes, branches.get(id)!.lane + 1);
    const bp = branches.get(id)!.branchPoint;
    const from = bp ? indexOf.get(bp) : undefined;
    if (from !== undefined && from < s.first) {
      // From the branch point's dot down the branch's lane to its first row.
      leaves[from]! |= bit;
      for (let i = from + 1; i <= s.first; i++) {
        top[i]! |= bit;
        if (i < s.first) bottom[i]! |= bit;
      }
    } else starts[s.first]! |= bit;
    for (let i = s.first; i <= s.last; i++) {
      if (i > s.first) top[i]! |= bit;
      if (i < s.last) bottom[i]! |= bit;
    }
  }
  return { rows, lanes, top, bottom, starts, leaves, branches, branchOf, indexOf, collapsedByDefault };
}

/** Row keys the keyboard moves through: prompts, collapsed branches and folds (not markers). */
export function isSelectable(r: Row): boolean {
  return r.kind === 'prompt' || r.kind === 'branch' || r.kind === 'fold';
}
