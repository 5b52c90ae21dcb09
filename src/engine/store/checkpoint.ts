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
  writeManifest,
  type CheckpointSummary,
  type Entry,
  type Manifest,
  type TranscriptCursor,
  type Trigger,
} from './manifest.js';
import { ObjectStore } from './objects.js';
import { cacheFromManifest, readStatCache, writeStatCache, writeStatCacheHead, type CacheEntry } from './stat-cache.js';
import { readTree, unreadableIn, type TreeState } from './tree-state.js';
import { walkTreeSync, type WalkEntry } from './walk-tree.js';

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

const toEntry = (p: string, e: CacheEntry): Entry => [p, e.kind, e.ref, e.mode, e.size, e.mtimeMs, e.ino];

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
    await cleanStoreTemps(opts.projectRoot);
    const now = opts.now ?? Date.now;
    const config = await readStoreConfig(opts.projectRoot);
    const objects = objectStore(opts.projectRoot);
    const ids = await listCheckpointIds(opts.projectRoot);
    const newestId = ids[ids.length - 1] ?? null;
    const walkStart = Date.now();
    const walked: WalkEntry[] = opts.fromState
      ? [...opts.fromState].map(([path, n]) => ({
          path,
          kind: n.kind === 'f' ? 'file' : n.kind === 'l' ? 'symlink' : 'dir',
          size: n.size,
          mode: n.mode,
          mtimeMs: n.mtimeMs ?? 0,
          ...(n.ctimeMs !== undefined ? { ctimeMs: n.ctimeMs } : {}),
          ino: n.ino ?? 0,
          ...(n.kind === 'l' ? { target: n.ref } : {}),
        }))
      : walkTreeSync(opts.projectRoot);
    // The parent: the cache when it is the newest checkpoint's tree, else that checkpoint read whole.
    let cache = await readStatCache(opts.projectRoot);
    let parent: Map<string, CacheEntry> | null = null;
    let parentDepth = 0;
    let parentFromCache = false;
    if (newestId && cache?.checkpoint === newestId) {
      parentFromCache = true;
      parent = cache.entries;
      parentDepth = cache.depth;
    } else if (newestId) {
      const m = await latestManifest(opts.projectRoot);
      if (m) {
        const fromManifest = cacheFromManifest(m);
        // The newest readable one is the parent only when it is the newest of all (a torn one breaks the chain).
        if (m.id === newestId) {
          parent = fromManifest.entries;
          parentDepth = m.depth ?? 0;
        }
        if (!cache) cache = fromManifest;
      }
    }
    // A state read from disk already knows each file's hash: not read again when that object is stored.
    const knownRefs = new Map<string, string>();
    if (opts.fromState) {
      const inParent = new Set([...(parent?.values() ?? [])].map((e) => e.ref));
      for (const [p, n] of opts.fromState) {
        if (n.kind === 'f' && (inParent.has(n.ref) || (await objects.has(n.ref)))) knownRefs.set(p, n.ref);
      }
    }
    const touched = new Set((opts.touched ?? []).map((raw) => raw.split('\\').join('/').replace(/^\.\//, '')));
    const read = await readTree(opts.projectRoot, walked, cache, { store: objects, touched, maxFileBytes: config.maxFileBytes, knownRefs });
    let note: string | undefined;
    if (opts.preImages) {
      const got = await opts.preImages();
      for (const [p, [ref, mode, size]] of Object.entries(got?.pre ?? {})) {
        // The content before the tool ran; the stat is unknown, so the next checkpoint reads the file again.
        if (ref === null) read.entries.delete(p);
        else read.entries.set(p, { kind: 'f', ref, mode, size, mtimeMs: -1, ino: -1 });
      }
      if (got?.uncovered) note = opts.uncoveredNote;
    }
    const skipped = [...read.skipped, ...(opts.fromState ? (unreadableIn.get(opts.fromState) ?? []) : [])];
    const entries: Entry[] = [...read.entries].map(([p, e]) => toEntry(p, e)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let newObjects = 0;
    const changed: CheckpointSummary['changed'] = { added: [], modified: [], deleted: [] };
    const set: Entry[] = [];
    const removed: string[] = [];
    for (const e of entries) {
      const o = parent?.get(e[0]);
      if (!o) {
        changed.added.push(e[0]);
        set.push(e);
        if (e[1] === 'f') newObjects++;
      } else if (o.kind !== e[1] || o.ref !== e[2] || o.mode !== e[3]) {
        changed.modified.push(e[0]);
        set.push(e);
        if (e[1] === 'f' && o.ref !== e[2]) newObjects++;
      }
    }
    for (const p of parent?.keys() ?? []) {
      if (!read.entries.has(p)) {
        changed.deleted.push(p);
        removed.push(p);
      }
    }
    // Directory entries are bookkeeping (only empty ones are recorded): not what the user calls a change.
    const isDir = (p: string) => (read.entries.get(p) ?? parent?.get(p))?.kind === 'd';
    for (const k of ['added', 'modified', 'deleted'] as const) changed[k] = changed[k].filter((p) => !isDir(p));
    const asDelta = !!parent && parentDepth < MAX_DELTA_DEPTH;
    const depth = asDelta ? parentDepth + 1 : 0;
    const manifest: Manifest = {
      version: 1,
      id: opts.id ?? newCheckpointId(now()),
      time: new Date(opts.time ?? now()).toISOString(),
      label: opts.label ?? null,
      trigger: opts.trigger,
      scan: 'full',
      parent: newestId,
      transcript: opts.transcript ?? null,
      entries,
      skipped,
      ...(asDelta ? { delta: { set, removed } } : {}),
      depth,
      ...(opts.background ? { background: { ...opts.background, finished: new Date().toISOString(), ...(note ? { note } : {}) } } : {}),
    };
    const summary = summarize(manifest, null, changed);
    await writeManifest(opts.projectRoot, manifest, summary);
    // Nothing changed and nothing was read: the cache stays as it is, named for this checkpoint too.
    const same = parentFromCache && read.hashed === 0 && set.length === 0 && removed.length === 0 && !opts.preImages && !opts.fromState;
    if (same) await writeStatCacheHead(opts.projectRoot, cache!.file ?? null, manifest.id, depth);
    else await writeStatCache(opts.projectRoot, { checkpoint: manifest.id, depth, written: walkStart, entries: read.entries });
    return { manifest, hashed: read.hashed, newObjects, ms: performance.now() - t0 };
  });
}
