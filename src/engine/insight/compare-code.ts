import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { structuredPatch } from 'diff';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { listCheckpoints, readManifest } from '../store/manifest.js';
import { objectStore } from '../store/checkpoint.js';
import { currentTree, treeFromEntries, type TreeState } from '../store/tree-state.js';

/** Where the code a side ended with was found. */
export type TreeSource = { kind: 'checkpoint'; id: string; time: string } | { kind: 'disk' } | { kind: 'agent-history'; before: string; files: number } | { kind: 'unknown'; reason: string };

/** A tree read from somewhere, with the paths it speaks for ('all', or only the files it tracks). */
export interface KnownTree {
  tree: TreeState;
  coverage: 'all' | Set<string>;
  read: (ref: string) => Promise<Buffer>;
}

/** The agent's own file history: the tracked files as they were right before a prompt, if it has them. */
export type AgentTreeBefore = (promptUuid: string) => Promise<KnownTree | null>;

export interface CodeFileDiff {
  path: string;
  status: 'A' | 'M' | 'D';
  added: number;
  removed: number;
  binary: boolean;
  /** Unified hunks (a -> b); null for binary or large files. */
  patch: string | null;
}

export interface CodeComparison {
  a: TreeSource;
  b: TreeSource;
  files: CodeFileDiff[];
  added: number;
  removed: number;
}

/** A checkpoint taken up to this long after the next prompt's time still shows the code before it. */
const HOOK_SLACK_MS = 5_000;
const MAX_TEXT_BYTES = 1024 * 1024;

const ms = (s: string | null | undefined) => (s ? Date.parse(s) : NaN);

/**
 * Where the code left by `end`'s turn is recorded: the first Rewind checkpoint taken after that turn
 * and no later than the next prompt (of any branch: they share the working tree), or the tree on disk
 * when nothing ran after it.
 */
export async function sideTree(projectRoot: string, timelines: Timeline[], end: TimelinePrompt | null, agentTreeBefore?: AgentTreeBefore): Promise<{ source: TreeSource; known: KnownTree | null }> {
  const store = objectStore(projectRoot);
  const fromStore = (ref: string) => readFile(store.pathOf(ref));
  if (!end) return { source: { kind: 'unknown', reason: 'the side has no prompt' }, known: null };
  const name = `${end.number !== null ? `#${end.number}` : 'the abandoned prompt'} "${end.text.slice(0, 30)}"`;
  const start = ms(end.timestamp);
  if (Number.isNaN(start)) return { source: { kind: 'unknown', reason: `${name} has no time` }, known: null };
  const turnEnd = start + (end.turn.durationMs ?? 0);
  const later = timelines.flatMap((t) => t.prompts.filter((p) => ms(p.timestamp) > start)).sort((x, y) => ms(x.timestamp) - ms(y.timestamp));
  const next = later.length ? ms(later[0]!.timestamp) : Infinity;
  const checkpoints = (await listCheckpoints(projectRoot).catch(() => [])).filter((c) => ms(c.time) >= turnEnd && (next === Infinity || ms(c.time) <= next + HOOK_SLACK_MS));
  checkpoints.sort((x, y) => ms(x.time) - ms(y.time));
  const first = checkpoints[0];
  if (first) {
    const m = await readManifest(projectRoot, first.id);
    return { source: { kind: 'checkpoint', id: first.id, time: first.time }, known: { tree: treeFromEntries(m.entries), coverage: 'all', read: fromStore } };
  }
  if (next === Infinity) {
    const disk = await currentTree(projectRoot, null);
    const pathOf = new Map([...disk].filter(([, s]) => s.kind === 'f').map(([p, s]) => [s.ref, p]));
    return { source: { kind: 'disk' }, known: { tree: disk, coverage: 'all', read: async (ref) => readFile(join(projectRoot, pathOf.get(ref) ?? '\0')) } };
  }
  // The agent's own history of the next prompt: the files it tracks, as that prompt found them.
  const native = agentTreeBefore ? await agentTreeBefore(later[0]!.uuid).catch(() => null) : null;
  if (native) return { source: { kind: 'agent-history', before: later[0]!.uuid, files: native.coverage === 'all' ? native.tree.size : native.coverage.size }, known: native };
  return { source: { kind: 'unknown', reason: `no checkpoint records the code after ${name} (install Rewind's hooks to record one at every prompt)` }, known: null };
}

const isBinary = (b: Buffer) => b.subarray(0, 8000).includes(0);

/** The files that differ between the two trees, as a stacked diff with +/- counts. */
export async function diffTrees(a: KnownTree, b: KnownTree): Promise<CodeFileDiff[]> {
  // A side that tracks only some files speaks only for those: compare where both sides know.
  const known = (p: string) => (a.coverage === 'all' || a.coverage.has(p)) && (b.coverage === 'all' || b.coverage.has(p));
  const paths = [...new Set([...a.tree.keys(), ...b.tree.keys(), ...(a.coverage === 'all' ? [] : a.coverage), ...(b.coverage === 'all' ? [] : b.coverage)])].filter(known).sort();
  const out: CodeFileDiff[] = [];
  for (const path of paths) {
    const x = a.tree.get(path);
    const y = b.tree.get(path);
    if (x?.kind === 'd' || y?.kind === 'd') continue;
    if (x && y && x.kind === y.kind && x.ref === y.ref) continue;
    const status = !x ? 'A' : !y ? 'D' : 'M';
    const [bx, by] = [x ? await a.read(x.ref).catch(() => Buffer.alloc(0)) : Buffer.alloc(0), y ? await b.read(y.ref).catch(() => Buffer.alloc(0)) : Buffer.alloc(0)];
    const binary = isBinary(bx) || isBinary(by) || bx.length > MAX_TEXT_BYTES || by.length > MAX_TEXT_BYTES;
    if (binary) {
      out.push({ path, status, added: 0, removed: 0, binary: true, patch: null });
      continue;
    }
    const p = structuredPatch(x ? `a/${path}` : '/dev/null', y ? `b/${path}` : '/dev/null', bx.toString('utf8'), by.toString('utf8'), '', '', { context: 3 });
    let added = 0;
    let removed = 0;
    const lines: string[] = [`--- ${p.oldFileName}`, `+++ ${p.newFileName}`];
    for (const h of p.hunks) {
      lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
      for (const l of h.lines) {
        if (l.startsWith('+')) added++;
        else if (l.startsWith('-')) removed++;
        lines.push(l);
      }
    }
    out.push({ path, status, added, removed, binary: false, patch: lines.join('\n') + '\n' });
  }
  return out;
}

/** The code difference between the trees two sides ended with, or why it is not known. */
export async function compareCode(projectRoot: string, timelines: Timeline[], endA: TimelinePrompt | null, endB: TimelinePrompt | null, agentTreeBefore?: AgentTreeBefore): Promise<CodeComparison> {
  const [a, b] = [await sideTree(projectRoot, timelines, endA, agentTreeBefore), await sideTree(projectRoot, timelines, endB, agentTreeBefore)];
  const files = a.known && b.known ? await diffTrees(a.known, b.known) : [];
  return { a: a.source, b: b.source, files, added: files.reduce((s, f) => s + f.added, 0), removed: files.reduce((s, f) => s + f.removed, 0) };
}
