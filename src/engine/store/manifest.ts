import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RewindError } from '../errors.js';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { appendOwnFile, ensureOwnDir, readOwnText } from '../io/own-file.js';
import { storeDir } from '../project.js';

/** One tree entry: [path, kind, blob sha256 | symlink target | '', mode, size, mtimeMs, ino]. */
export type Entry = [path: string, kind: 'f' | 'l' | 'd', ref: string, mode: number, size: number, mtimeMs: number, ino: number];

export const TRIGGERS = ['prompt', 'manual', 'pre-restore', 'post-restore', 'session-start', 'turn-end'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export interface TranscriptCursor {
  transcript_path: string;
  session_id: string | null;
  agent: string;
  prompt_uuid: string | null;
  prompt_id: string | null;
  /** Transcript size when the checkpoint was taken. */
  byte_offset_end: number;
  /** sha256 of the (up to) 64 KiB before byte_offset_end: tells a rewritten transcript apart. */
  prefix_sha256: string;
}

export interface Manifest {
  version: 1;
  id: string;
  time: string;
  label: string | null;
  trigger: Trigger;
  /**
   * 'full': the whole tree was walked (every checkpoint now). 'touched': an older store's, where
   * only paths the agent reported were re-read and the rest is the parent's.
   */
  scan: 'full' | 'touched';
  parent: string | null;
  transcript: TranscriptCursor | null;
  /** The whole tree (resolved from the chain when this checkpoint is stored as a delta). */
  entries: Entry[];
  skipped: { path: string; size: number; reason: string }[];
  /**
   * On disk, a touched checkpoint stores only what changed against its parent: writing it costs
   * O(touched) whatever the tree size. `readManifest` resolves the chain into `entries`.
   */
  delta?: { set: Entry[]; removed: string[] };
  /** Deltas since the last full manifest (0 for a full one). */
  depth?: number;
  /**
   * Taken in the background (a project's first checkpoint never holds up the agent): it stands for
   * the tree at `time` but was read from `started` to `finished`, while the agent could already
   * work; `note` says what that leaves uncovered.
   */
  background?: { started: string; finished: string; note?: string };
}

export const MAX_DELTA_DEPTH = 50;

/** What `checkpoints` lists, kept in a small index so listing never reads whole manifests. */
export interface CheckpointSummary {
  id: string;
  depth?: number;
  time: string;
  label: string | null;
  trigger: Trigger;
  scan: 'full' | 'touched';
  transcript: TranscriptCursor | null;
  files: number;
  bytes: number;
  changed: { added: string[]; modified: string[]; deleted: string[] };
  skipped: number;
  /** The files it passed over, named (the first 100), and why. */
  skippedPaths?: { path: string; reason: string }[];
  /** Taken in the background: what it cannot vouch for (see Manifest.background). */
  background?: Manifest['background'];
}

export function checkpointsDir(projectRoot: string): string {
  return join(storeDir(projectRoot), 'checkpoints');
}

export function newCheckpointId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

const ID = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/;

function isEntry(e: unknown): e is Entry {
  return (
    Array.isArray(e) &&
    e.length === 7 &&
    typeof e[0] === 'string' &&
    (e[1] === 'f' || e[1] === 'l' || e[1] === 'd') &&
    typeof e[2] === 'string' &&
    typeof e[3] === 'number' &&
    typeof e[4] === 'number' &&
    typeof e[5] === 'number' &&
    typeof e[6] === 'number'
  );
}

/** Validates a manifest read from disk (hand-written: 20k entries must parse in a few ms). */
export function parseManifest(raw: string, where: string): Manifest {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new RewindError('IO', `checkpoint manifest is not valid JSON: ${where}`);
  }
  const bad = (what: string) => new RewindError('IO', `checkpoint manifest ${where} is invalid: ${what}`);
  if (v?.version !== 1) throw bad('unknown version');
  if (typeof v.id !== 'string' || !ID.test(v.id)) throw bad('id');
  if (typeof v.time !== 'string') throw bad('time');
  if (!TRIGGERS.includes(v.trigger as Trigger)) throw bad('trigger');
  if (v.scan !== 'full' && v.scan !== 'touched') throw bad('scan');
  if (!Array.isArray(v.entries) || !v.entries.every(isEntry)) throw bad('entries');
  if (!Array.isArray(v.skipped)) throw bad('skipped');
  if (v.delta !== undefined) {
    const d = v.delta as { set?: unknown; removed?: unknown };
    if (!Array.isArray(d.set) || !d.set.every(isEntry) || !Array.isArray(d.removed) || !d.removed.every((r) => typeof r === 'string')) throw bad('delta');
  }
  const t = v.transcript as TranscriptCursor | null;
  if (t !== null && (typeof t !== 'object' || typeof t.transcript_path !== 'string' || typeof t.byte_offset_end !== 'number')) throw bad('transcript');
  return v as unknown as Manifest;
}

async function readStored(projectRoot: string, id: string): Promise<Manifest> {
  if (!ID.test(id)) throw new RewindError('USAGE', `not a checkpoint id: ${id}`);
  const p = join(checkpointsDir(projectRoot), `${id}.json`);
  const raw = await readOwnText(p).catch(() => null);
  if (raw === null) throw new RewindError('NOT_FOUND', `no checkpoint ${id}`);
  return parseManifest(raw, p);
}

// Manifests never change once written: resolved ones are kept for the life of the process.
const resolvedCache = new Map<string, Manifest>();

/** A checkpoint with its whole tree, resolving delta chains. */
export async function readManifest(projectRoot: string, id: string): Promise<Manifest> {
  const key = `${projectRoot}\0${id}`;
  const hit = resolvedCache.get(key);
  if (hit) return hit;
  const chain: Manifest[] = [];
  let cur = await readStored(projectRoot, id);
  while (cur.delta) {
    chain.push(cur);
    if (!cur.parent) throw new RewindError('IO', `checkpoint ${cur.id} is a delta without a parent`);
    const cached = resolvedCache.get(`${projectRoot}\0${cur.parent}`);
    if (cached) {
      cur = cached;
      break;
    }
    if (chain.length > MAX_DELTA_DEPTH * 4) throw new RewindError('IO', `checkpoint chain under ${id} is too long or loops`);
    cur = await readStored(projectRoot, cur.parent);
  }
  let entries = new Map(cur.entries.map((e) => [e[0], e]));
  let skipped = cur.skipped;
  resolvedCache.set(`${projectRoot}\0${cur.id}`, cur);
  for (let i = chain.length - 1; i >= 0; i--) {
    const d = chain[i]!;
    entries = new Map(entries);
    const touched = new Set([...d.delta!.set.map((e) => e[0]), ...d.delta!.removed, ...d.skipped.map((x) => x.path)]);
    for (const r of d.delta!.removed) entries.delete(r);
    for (const e of d.delta!.set) {
      entries.set(e[0], e);
      // A file in what was an empty directory: that directory is no longer empty.
      for (let p = e[0]; p.includes('/'); ) {
        p = p.slice(0, p.lastIndexOf('/'));
        if (entries.get(p)?.[1] === 'd') entries.delete(p);
      }
    }
    // A whole-tree checkpoint names every file it passed over; an older touched one only its own.
    skipped = d.scan === 'full' ? d.skipped : [...skipped.filter((x) => !touched.has(x.path)), ...d.skipped];
    const resolved: Manifest = { ...d, entries: [...entries.values()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)), skipped };
    resolvedCache.set(`${projectRoot}\0${d.id}`, resolved);
    cur = resolved;
  }
  return cur;
}

export async function listCheckpointIds(projectRoot: string): Promise<string[]> {
  const names = await readdir(checkpointsDir(projectRoot)).catch(() => [] as string[]);
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -5))
    .filter((n) => ID.test(n))
    .sort();
}

/** The manifest's other fields, without reading `entries` (a checkpoint makes them only when asked for). */
export function withoutEntries(m: Manifest): Omit<Manifest, 'entries'> {
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(m)) if (k !== 'entries') o[k] = (m as unknown as Record<string, unknown>)[k];
  return o as unknown as Omit<Manifest, 'entries'>;
}

export async function writeManifest(projectRoot: string, m: Manifest, summary: CheckpointSummary): Promise<void> {
  // A real folder inside the store, never a link the project shipped.
  const dir = await ensureOwnDir(storeDir(projectRoot), 'checkpoints');
  const stored = m.delta ? { ...withoutEntries(m), entries: [] } : m;
  await writeBufferAtomic(join(dir, `${m.id}.json`), JSON.stringify(stored));
  await appendOwnFile(join(dir, 'index.jsonl'), `${JSON.stringify(summary)}\n`);
}

/** Summaries, oldest first; manifests without an index line (a crash between writes) are read. */
export async function listCheckpoints(projectRoot: string): Promise<CheckpointSummary[]> {
  const ids = await listCheckpointIds(projectRoot);
  const byId = new Map<string, CheckpointSummary>();
  const raw = ((await readOwnText(join(checkpointsDir(projectRoot), 'index.jsonl')).catch(() => null)) ?? '');
  for (const line of raw.split('\n')) {
    if (!line) continue;
    try {
      const s = JSON.parse(line) as CheckpointSummary;
      if (typeof s.id === 'string') byId.set(s.id, s);
    } catch {
      // torn line
    }
  }
  const out: CheckpointSummary[] = [];
  for (const id of ids) {
    const s = byId.get(id);
    if (s) out.push(s);
    else {
      const m = await readManifest(projectRoot, id).catch(() => null);
      if (m) out.push(summarize(m, null));
    }
  }
  return out;
}

export function summarize(m: Manifest, parent: Manifest | null, changedOverride?: CheckpointSummary['changed']): CheckpointSummary {
  const files = m.entries.filter((e) => e[1] !== 'd');
  const changed = changedOverride ?? diffEntries(parent?.entries ?? [], m.entries);
  return {
    id: m.id,
    depth: m.depth ?? 0,
    time: m.time,
    label: m.label,
    trigger: m.trigger,
    scan: m.scan,
    transcript: m.transcript,
    files: files.length,
    bytes: files.reduce((s, e) => s + e[4], 0),
    changed,
    skipped: m.skipped.length,
    ...(m.skipped.length ? { skippedPaths: m.skipped.slice(0, 100).map((x) => ({ path: x.path, reason: x.reason })) } : {}),
    ...(m.background ? { background: m.background } : {}),
  };
}

export function diffEntries(before: Entry[], after: Entry[]): { added: string[]; modified: string[]; deleted: string[] } {
  const a = new Map(before.map((e) => [e[0], e]));
  const b = new Map(after.map((e) => [e[0], e]));
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const [p, e] of b) {
    const o = a.get(p);
    if (!o) added.push(p);
    else if (o[1] !== e[1] || o[2] !== e[2] || o[3] !== e[3]) modified.push(p);
  }
  for (const p of a.keys()) if (!b.has(p)) deleted.push(p);
  return { added, modified, deleted };
}

/** The newest index line: what a touched checkpoint needs of its parent (no manifest read). */
export async function lastSummary(projectRoot: string): Promise<CheckpointSummary | null> {
  const raw = ((await readOwnText(join(checkpointsDir(projectRoot), 'index.jsonl')).catch(() => null)) ?? '');
  const lines = raw.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const s = JSON.parse(lines[i]!) as CheckpointSummary;
      if (typeof s.id === 'string') return s;
    } catch {
      // torn line
    }
  }
  return null;
}

/** The newest checkpoint that can be read (a torn newest one falls back to the one before). */
export async function latestManifest(projectRoot: string): Promise<Manifest | null> {
  const ids = await listCheckpointIds(projectRoot);
  for (let i = ids.length - 1; i >= 0; i--) {
    const m = await readManifest(projectRoot, ids[i]!).catch(() => null);
    if (m) return m;
  }
  return null;
}
