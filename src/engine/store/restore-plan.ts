import type { NodeState, TreeState } from './tree-state.js';

export type Action = 'create' | 'modify' | 'delete' | 'unchanged';

export interface FileChange {
  path: string;
  action: Action;
  before: NodeState | null;
  after: NodeState | null;
  /** Why this change may lose work that is not in any checkpoint; null when it is safe. */
  conflict: string | null;
}

export interface RestorePlan {
  changes: FileChange[];
  unchanged: number;
  /** Paths on disk the source does not cover (left as they are). */
  untouched: string[];
  conflicts: number;
}

export interface PlanInput {
  target: TreeState;
  current: TreeState;
  /** What the tree should be if nobody but the agent touched it since: conflicts are departures. */
  expected: TreeState | null;
  /** 'all': the target is the whole tree; a set: only these paths are the source's business. */
  coverage: 'all' | Set<string>;
  /** Paths never to touch (recorded as too large, outside the project...). */
  leaveAlone?: Set<string>;
}

const same = (a: NodeState | undefined | null, b: NodeState | undefined | null) =>
  !!a && !!b && a.kind === b.kind && a.ref === b.ref && (a.kind !== 'f' || (a.mode & 0o111) === (b.mode & 0o111));

/** Pure: what a restore would do to each path, with conflicts flagged. */
export function planRestore(input: PlanInput): RestorePlan {
  const { target, current, expected, coverage } = input;
  const leave = input.leaveAlone ?? new Set<string>();
  const paths = new Set<string>();
  const untouched: string[] = [];
  if (coverage === 'all') {
    for (const p of target.keys()) paths.add(p);
    for (const p of current.keys()) paths.add(p);
  } else {
    for (const p of coverage) paths.add(p);
    for (const p of current.keys()) if (!coverage.has(p) && current.get(p)!.kind !== 'd') untouched.push(p);
  }
  // Folders the target has files in: an empty one on disk there stays (it will hold them).
  const targetDirs = new Set<string>();
  for (const p of target.keys()) for (let d = p; d.includes('/'); ) targetDirs.add((d = d.slice(0, d.lastIndexOf('/'))));
  const changes: FileChange[] = [];
  let unchanged = 0;
  // A path under one left alone (a folder the checkpoint could not read) is left alone with it.
  const leftAlone = (path: string) => {
    if (leave.has(path)) return true;
    for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) if (leave.has(path.slice(0, i))) return true;
    return false;
  };
  for (const path of [...paths].sort()) {
    if (leave.size && leftAlone(path)) {
      untouched.push(path);
      continue;
    }
    const t = target.get(path) ?? null;
    const c = current.get(path) ?? null;
    if (!t && !c) continue;
    // An empty directory that now has content is not deleted; one that is missing is recreated.
    if (t?.kind === 'd' && c?.kind === 'd') {
      unchanged++;
      continue;
    }
    // An empty directory (the walk records only empty ones) the target has not: it goes when the
    // target is the whole tree (it holds nothing to lose); a tracked source leaves it.
    if (!t && c?.kind === 'd' && (coverage !== 'all' || targetDirs.has(path))) continue;
    let action: Action;
    if (t && !c) action = 'create';
    else if (!t && c) action = 'delete';
    else action = same(t, c) ? 'unchanged' : 'modify';
    if (action === 'unchanged') {
      unchanged++;
      continue;
    }
    let conflict: string | null = null;
    if (expected && c && c.kind !== 'd') {
      const e = expected.get(path);
      if (!e) conflict = 'created after the last checkpoint, not by a recorded agent edit: restoring removes it';
      else if (!same(e, c)) conflict = 'changed after the last checkpoint, not by a recorded agent edit (by hand or by a shell command)';
    }
    changes.push({ path, action, before: c, after: t, conflict });
  }
  untouched.sort();
  return { changes, unchanged, untouched, conflicts: changes.filter((c) => c.conflict).length };
}
