import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureStore, storeDir } from '../project.js';
import { readStoreConfig } from './config.js';
import { RewindError } from '../errors.js';
import { withLock } from './lock.js';
import {
  MAX_DELTA_DEPTH,
  checkpointsDir,
  latestManifest,
  listCheckpointIds,
  newCheckpointId,
  summarize,
  withoutEntries,
  writeManifest,
  type CheckpointSummary,
  type Entry,
  type Manifest,
  type TranscriptCursor,
  type Trigger,
} from './manifest.js';
import { ObjectStore } from './objects.js';
import { scanTree, type Scan } from './scan-tree.js';
import { cacheFromManifest, readStatCache, writeStatCache, writeStatCacheHead } from './stat-cache.js';
import { kindCode, RowsBuilder, TreeRows, type CacheEntry } from './tree-rows.js';
import { readScan, unreadableIn, type TreeState } from './tree-state.js';

export interface CheckpointOptions {
  projectRoot: string;
  trigger: Trigger;
  label?: string | null;
  transcript?: TranscriptCursor | null;
  /**
   * Paths (relative to the root) the agent is known to have touched since the last checkpoint:
   * read whatever their stat says. Only an accelerator of correctness, never the definition of
   * what changed: the whole tree is walked every time.
   */
  touched?: string[] | null;
  /** A checkpoint taken in the background: its id and time are the ones the hook gave the prompt. */
  id?: string;
  time?: number;
  background?: { started: string; note?: string };
  /** A background checkpoint: what the tools' pre-hooks kept meanwhile, read once the tree has been read. */
  preImages?: () => Promise<{ pre: Record<string, [string | null, number, number]>; uncovered: boolean } | null>;
  /** Said in the manifest when a tool with unknown paths ran while a background checkpoint was read. */
  uncoveredNote?: string;
  /** The tree as just read from disk (a restore's preview has it): no second walk. */
  fromState?: TreeState | null;
  now?: () => number;
}

export interface CheckpointResult {
  manifest: Manifest;
  hashed: number;
  newObjects: number;
  ms: number;
  /** Where the time went, by phase (ms): what `REWIND_HOOK_DEBUG` prints and the bench reads. */
  phases: Record<string, number>;
}

export function objectStore(projectRoot: string): ObjectStore {
  return new ObjectStore(join(projectRoot, '.agent', 'rewind', 'objects'));
}

/**
 * What a killed checkpoint left: manifest temps whose writer is gone, object temps over 10 minutes
 * old (writers of objects do not all hold this lock). Runs under the checkpoint lock.
 */
export async function cleanStoreTemps(projectRoot: string): Promise<void> {
  const { cleanStaleTemps } = await import('../io/atomic-write.js');
  await cleanStaleTemps(checkpointsDir(projectRoot));
  await cleanStaleTemps(storeDir(projectRoot));
  const objectsDir = join(storeDir(projectRoot), 'objects');
  const { readdir, stat, unlink } = await import('node:fs/promises');
  for (const name of await readdir(objectsDir).catch(() => [] as string[])) {
    if (!name.startsWith('tmp-')) continue;
    const st = await stat(join(objectsDir, name)).catch(() => null);
    if (st && Date.now() - st.mtimeMs > 10 * 60_000) await unlink(join(objectsDir, name)).catch(() => undefined);
  }
}

/** Store folders Rewind writes blobs and manifests into: a link there (a cloned project can ship one) is refused. */
async function refuseLinkedStore(projectRoot: string): Promise<void> {
  for (const name of ['objects', 'checkpoints']) {
    const st = await lstat(join(storeDir(projectRoot), name)).catch(() => null);
    if (st && !st.isDirectory()) throw new RewindError('IO', `${join(storeDir(projectRoot), name)} is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}: Rewind writes nothing through it (remove it to take checkpoints)`);
  }
}

/**
 * Takes a checkpoint of the whole project tree as it is now: the user's own edits since the last
 * one included, whoever made them. An lstat walk compared with the stat cache (git's index, in
 * effect) tells which files changed; only those are read. Paths the agent named (`touched`) are
 * read whatever their stat says. On disk it is a delta against the newest checkpoint when that is
 * cheaper (a chain of at most MAX_DELTA_DEPTH), so its cost follows what changed.
 */
export async function takeCheckpoint(opts: CheckpointOptions): Promise<CheckpointResult> {
  const store = await ensureStore(opts.projectRoot);
  await refuseLinkedStore(opts.projectRoot);
  return withLock(join(store, 'checkpoint.lock'), async () => {
    const t0 = performance.now();
    const phases: Record<string, number> = {};
    let lap = t0;
    const mark = (name: string) => {
      const now = performance.now();
      phases[name] = Math.round((now - lap) * 10) / 10;
      lap = now;
    };
    await cleanStoreTemps(opts.projectRoot);
    const now = opts.now ?? Date.now;
    const config = await readStoreConfig(opts.projectRoot);
    const objects = objectStore(opts.projectRoot);
    const ids = await listCheckpointIds(opts.projectRoot);
    const newestId = ids[ids.length - 1] ?? null;
    // The parent: the cache when it is the newest checkpoint's tree, else that checkpoint read whole.
    let cache = await readStatCache(opts.projectRoot);
    let parent: TreeRows | null = null;
    let parentDepth = 0;
    let parentFromCache = false;
    if (newestId && cache?.checkpoint === newestId) {
      parentFromCache = true;
      parent = cache.rows;
      parentDepth = cache.depth;
    } else if (newestId) {
      const m = await latestManifest(opts.projectRoot);
      if (m) {
        const fromManifest = cacheFromManifest(m);
        // The newest readable one is the parent only when it is the newest of all (a torn one breaks the chain).
        if (m.id === newestId) {
          parent = fromManifest.rows;
          parentDepth = m.depth ?? 0;
        }
        if (!cache) cache = fromManifest;
      }
    }
    mark('cache');
    const touched = new Set((opts.touched ?? []).map((raw) => raw.split('\\').join('/').replace(/^\.\//, '')));
    let scan: Scan;
    const knownRefs = new Map<string, string>();
    if (opts.fromState) {
      scan = await scanFromState(opts.fromState, parent, objects, knownRefs);
      cache = null;
    } else scan = scanTree(opts.projectRoot, cache, { touched, maxFileBytes: config.maxFileBytes });
    const walkStart = scan.walkStart;
    mark('walk');
    const read = await readScan(opts.projectRoot, scan, cache, { store: objects, knownRefs });
    mark('read');
    let rows = read.rows;
    let from = read.from;
    let note: string | undefined;
    let amended = false;
    if (opts.preImages) {
      const got = await opts.preImages();
      const pre = Object.entries(got?.pre ?? {});
      if (pre.length) {
        amended = true;
        const map = new Map<string, CacheEntry>();
        for (let i = 0; i < rows.length; i++) map.set(rows.paths[i]!, rows.entry(i));
        // The content before the tool ran; the stat is unknown, so the next checkpoint reads the file again.
        for (const [p, [ref, mode, size]] of pre) {
          if (ref === null) map.delete(p);
          else map.set(p, { kind: 'f', ref, mode, size, mtimeMs: -1, ino: -1 });
        }
        rows = TreeRows.fromEntries(map);
        from = new Array<number>(rows.length).fill(-1);
      }
      if (got?.uncovered) note = opts.uncoveredNote;
    }
    const skipped = [...read.skipped, ...(opts.fromState ? (unreadableIn.get(opts.fromState) ?? []) : [])];
    const d = diffRows(rows, from, parent, parentFromCache);
    const asDelta = !!parent && parentDepth < MAX_DELTA_DEPTH;
    const depth = asDelta ? parentDepth + 1 : 0;
    const manifest = {
      version: 1,
      id: opts.id ?? newCheckpointId(now()),
      time: new Date(opts.time ?? now()).toISOString(),
      label: opts.label ?? null,
      trigger: opts.trigger,
      scan: 'full',
      parent: newestId,
      transcript: opts.transcript ?? null,
      skipped,
      ...(asDelta ? { delta: { set: d.set, removed: d.removed } } : {}),
      depth,
      ...(opts.background ? { background: { ...opts.background, finished: new Date().toISOString(), ...(note ? { note } : {}) } } : {}),
    } as Omit<Manifest, 'entries'> as Manifest;
    // The whole tree as entries is made only when asked for (a full manifest, a caller): a delta never needs it.
    let entries: Entry[] | null = null;
    Object.defineProperty(manifest, 'entries', {
      enumerable: true,
      configurable: true,
      get: () => (entries ??= Array.from({ length: rows.length }, (_, i) => rows.toEntry(i))),
      set: (v: Entry[]) => (entries = v),
    });
    const summary: CheckpointSummary = { ...summarize({ ...withoutEntries(manifest), entries: [] }, null, d.changed), files: d.files, bytes: d.bytes };
    mark('diff');
    await writeManifest(opts.projectRoot, manifest, summary);
    mark('manifest');
    // Nothing changed, nothing was read, no folder listed anew: the cache stays as it is, named for this checkpoint too.
    const same = parentFromCache && read.hashed === 0 && d.set.length === 0 && d.removed.length === 0 && scan.listed === 0 && !amended && !opts.fromState;
    if (same) await writeStatCacheHead(opts.projectRoot, cache!.file ?? null, manifest.id, depth);
    else await writeStatCache(opts.projectRoot, { checkpoint: manifest.id, depth, written: walkStart, rows }, scan.listings);
    mark(same ? 'head' : 'statCache');
    return { manifest, hashed: read.hashed, newObjects: d.newObjects, ms: performance.now() - t0, phases: { ...phases, foldersListed: scan.listed, filesRead: read.hashed } };
  });
}

/** A state a restore just read from disk as a scan: a file whose blob is stored keeps its hash unread. */
async function scanFromState(state: TreeState, parent: TreeRows | null, objects: ObjectStore, knownRefs: Map<string, string>): Promise<Scan> {
  const inParent = new Set<string>();
  if (parent) for (let i = 0; i < parent.length; i++) if (parent.kinds[i] === 0) inParent.add(parent.ref(i));
  const b = new RowsBuilder();
  const sorted = [...state].sort((a, c) => (a[0] < c[0] ? -1 : a[0] > c[0] ? 1 : 0));
  const toRead: number[] = [];
  for (const [p, n] of sorted) {
    const i = b.push(p, kindCode(n.kind), n.mode, n.size, n.mtimeMs ?? 0, n.ctimeMs ?? Number.NaN, n.ino ?? 0, n.kind === 'f' ? null : n.ref);
    if (n.kind !== 'f') continue;
    if (inParent.has(n.ref) || (await objects.has(n.ref))) knownRefs.set(p, n.ref);
    toRead.push(i);
  }
  return { rows: b, from: new Array<number>(sorted.length).fill(-1), toRead, skipped: [], walkStart: Date.now(), listings: null, listed: 0, reused: 0 };
}

interface RowsDiff {
  set: Entry[];
  removed: string[];
  changed: CheckpointSummary['changed'];
  newObjects: number;
  files: number;
  bytes: number;
}

/**
 * What changed against the parent, both in path order (one pass, no map): a row whose content
 * came from the parent's own cache row is unchanged without comparing hashes.
 */
function diffRows(rows: TreeRows, from: readonly number[], parent: TreeRows | null, parentIsCache: boolean): RowsDiff {
  const set: Entry[] = [];
  const removed: string[] = [];
  const changed: CheckpointSummary['changed'] = { added: [], modified: [], deleted: [] };
  let newObjects = 0;
  let files = 0;
  let bytes = 0;
  const seen = parent ? new Uint8Array(parent.length) : null;
  parent?.rewind();
  for (let i = 0; i < rows.length; i++) {
    const kind = rows.kinds[i]!;
    if (kind !== 2) {
      files++;
      bytes += rows.sizes[i]!;
    }
    const p = rows.paths[i]!;
    const pi = parent ? parent.find(p) : -1;
    if (pi < 0) {
      if (kind !== 2) changed.added.push(p);
      set.push(rows.toEntry(i));
      if (kind === 0) newObjects++;
      continue;
    }
    seen![pi] = 1;
    const pk = parent!.kinds[pi]!;
    const sameRef = parentIsCache && from[i] === pi ? true : rows.ref(i) === parent!.ref(pi);
    if (pk !== kind || rows.modes[i] !== parent!.modes[pi] || !sameRef) {
      // Directory entries are bookkeeping (only empty ones are recorded): not what the user calls a change.
      if (kind !== 2) changed.modified.push(p);
      set.push(rows.toEntry(i));
      if (kind === 0 && !sameRef) newObjects++;
    }
  }
  if (parent) {
    for (let pi = 0; pi < parent.length; pi++) {
      if (seen![pi]) continue;
      const p = parent.paths[pi]!;
      removed.push(p);
      if (parent.kinds[pi] !== 2) changed.deleted.push(p);
    }
  }
  return { set, removed, changed, newObjects, files, bytes };
}
