import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureStore, storeDir } from '../project.js';
import { readStoreConfig } from './config.js';
import { IgnoreStack } from './ignore-rules.js';
import { withLock } from './lock.js';
import {
  MAX_DELTA_DEPTH,
  checkpointsDir,
  lastSummary,
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
import type { TreeState } from './tree-state.js';
import { walkTree, type WalkEntry } from './walk-tree.js';

export interface CheckpointOptions {
  projectRoot: string;
  trigger: Trigger;
  label?: string | null;
  transcript?: TranscriptCursor | null;
  /**
   * Paths (relative to the root) the agent is known to have touched since the last checkpoint.
   * When given and a previous checkpoint exists, only these are looked at: no tree walk.
   */
  touched?: string[] | null;
  /** Of the touched paths, those that did not exist before (the hook saw them created). */
  created?: string[] | null;
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

/** Whether git's rules ignore `rel`, reading only the .gitignore files on its way down. */
async function ignoredPath(root: string, rel: string, isDir: boolean): Promise<boolean> {
  const stack = new IgnoreStack();
  const parts = rel.split('/');
  let base = '';
  for (let i = 0; i < parts.length; i++) {
    const gi = await readFile(join(root, base, '.gitignore'), 'utf8').catch(() => null);
    if (gi !== null) stack.push(base, gi);
    const sub = parts.slice(0, i + 1).join('/');
    const last = i === parts.length - 1;
    if (stack.ignores(sub, last ? isDir : true)) return true;
    base = sub;
  }
  return false;
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

/**
 * Takes a checkpoint of the project tree. A full scan is a stat walk: a file whose size, mtime and
 * inode match the previous manifest keeps its blob without being read. A touched scan starts from
 * the previous manifest and looks only at the given paths.
 */
export async function takeCheckpoint(opts: CheckpointOptions): Promise<CheckpointResult> {
  const store = await ensureStore(opts.projectRoot);
  return withLock(join(store, 'checkpoint.lock'), async () => {
    const t0 = performance.now();
    await cleanStoreTemps(opts.projectRoot);
    const now = opts.now ?? Date.now;
    const config = await readStoreConfig(opts.projectRoot);
    const objects = objectStore(opts.projectRoot);
    const ids = await listCheckpointIds(opts.projectRoot);
    const parentSummary = opts.touched && ids.length ? await lastSummary(opts.projectRoot) : null;
    const deltaOk = !!parentSummary && parentSummary.id === ids[ids.length - 1] && (parentSummary.depth ?? 0) < MAX_DELTA_DEPTH;
    // A touched checkpoint never reads the parent's tree: it only records what changed.
    const prev = deltaOk ? null : await latestManifest(opts.projectRoot);
    const prevByPath = new Map<string, Entry>((prev?.entries ?? []).map((e) => [e[0], e]));
    const storedRefs = new Map<string, string>();
    let hashed = 0;
    let newObjects = 0;
    const skipped: Manifest['skipped'] = [];

    const fileEntry = async (w: WalkEntry): Promise<Entry | null> => {
      if (w.kind === 'dir') return [w.path, 'd', '', w.mode, 0, w.mtimeMs, w.ino];
      if (w.kind === 'symlink') return [w.path, 'l', w.target ?? '', 0o777, 0, w.mtimeMs, w.ino];
      if (w.size > config.maxFileBytes) {
        skipped.push({ path: w.path, size: w.size, reason: `larger than ${config.maxFileBytes} bytes` });
        return null;
      }
      const old = prevByPath.get(w.path);
      if (old && old[1] === 'f' && old[4] === w.size && old[5] === w.mtimeMs && old[6] === w.ino) return [w.path, 'f', old[2], w.mode, w.size, w.mtimeMs, w.ino];
      const stored = storedRefs.get(w.path);
      if (stored) return [w.path, 'f', stored, w.mode, w.size, w.mtimeMs, w.ino];
      const blob = await objects.putFile(join(opts.projectRoot, w.path), w.size);
      hashed++;
      if (!old || old[2] !== blob) newObjects++;
      return [w.path, 'f', blob, w.mode, w.size, w.mtimeMs, w.ino];
    };

    let entries: Entry[] = [];
    let delta: Manifest['delta'];
    let scan: Manifest['scan'];
    let changedOverride: CheckpointSummary['changed'] | undefined;
    if (deltaOk && opts.touched) {
      scan = 'touched';
      const set: Entry[] = [];
      const removed: string[] = [];
      const created = new Set(opts.created ?? []);
      const changed: CheckpointSummary['changed'] = { added: [], modified: [], deleted: [] };
      for (const raw of new Set(opts.touched)) {
        const rel = raw.split('\\').join('/').replace(/^\.\//, '');
        if (!rel || rel.startsWith('../') || rel.startsWith('/')) continue;
        // An ignored path is never in a checkpoint: nothing to record.
        if (await ignoredPath(opts.projectRoot, rel, false)) continue;
        const st = await lstat(join(opts.projectRoot, rel)).catch(() => null);
        if (!st || (!st.isFile() && !st.isSymbolicLink())) {
          removed.push(rel);
          if (!created.has(rel)) changed.deleted.push(rel);
          continue;
        }
        const w: WalkEntry = st.isSymbolicLink()
          ? { path: rel, kind: 'symlink', size: 0, mode: 0o777, mtimeMs: st.mtimeMs, ino: st.ino, target: await readlink(join(opts.projectRoot, rel)) }
          : { path: rel, kind: 'file', size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ino: st.ino };
        const e = await fileEntry(w);
        if (e) set.push(e);
        else removed.push(rel);
        (created.has(rel) ? changed.added : changed.modified).push(rel);
      }
      delta = { set, removed };
      changedOverride = changed;
    } else {
      scan = 'full';
      const walked: WalkEntry[] = opts.fromState
        ? [...opts.fromState].map(([path, n]) => ({
            path,
            kind: n.kind === 'f' ? 'file' : n.kind === 'l' ? 'symlink' : 'dir',
            size: n.size,
            mode: n.mode,
            mtimeMs: n.mtimeMs ?? 0,
            ino: n.ino ?? 0,
            ...(n.kind === 'l' ? { target: n.ref } : {}),
          }))
        : await walkTree(opts.projectRoot);
      // A state read from disk already knows each file's hash: no need to read it when that
      // object is stored already.
      if (opts.fromState) {
        const inParent = new Set((prev?.entries ?? []).map((e) => e[2]));
        for (const [p, n] of opts.fromState) {
          if (n.kind === 'f' && (inParent.has(n.ref) || (await objects.has(n.ref)))) storedRefs.set(p, n.ref);
        }
      }
      const out: (Entry | null)[] = new Array(walked.length);
      // A few files at a time: reading is I/O bound, hashing is not the bottleneck.
      let next = 0;
      const worker = async () => {
        while (next < walked.length) {
          const i = next++;
          out[i] = await fileEntry(walked[i]!);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      entries = out.filter((e): e is Entry => e !== null);
    }
    const manifest: Manifest = {
      version: 1,
      id: newCheckpointId(now()),
      time: new Date(now()).toISOString(),
      label: opts.label ?? null,
      trigger: opts.trigger,
      scan,
      parent: deltaOk ? parentSummary!.id : (prev?.id ?? null),
      transcript: opts.transcript ?? null,
      entries,
      skipped,
      ...(delta ? { delta, depth: (parentSummary!.depth ?? 0) + 1 } : { depth: 0 }),
    };
    let summary = summarize(manifest, prev, changedOverride);
    if (delta && parentSummary) {
      const addedBytes = delta.set.reduce((n, e) => n + e[4], 0);
      summary = { ...summary, files: parentSummary.files + changedOverride!.added.length - changedOverride!.deleted.length, bytes: parentSummary.bytes + addedBytes };
    }
    await writeManifest(opts.projectRoot, manifest, summary);
    return { manifest, hashed, newObjects, ms: performance.now() - t0 };
  });
}
