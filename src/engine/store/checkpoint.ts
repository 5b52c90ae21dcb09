import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureStore } from '../project.js';
import { readStoreConfig } from './config.js';
import { IgnoreStack } from './ignore-rules.js';
import { withLock } from './lock.js';
import { listCheckpointIds, newCheckpointId, readManifest, summarize, writeManifest, type Entry, type Manifest, type TranscriptCursor, type Trigger } from './manifest.js';
import { ObjectStore } from './objects.js';
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

async function latestManifest(projectRoot: string): Promise<Manifest | null> {
  const ids = await listCheckpointIds(projectRoot);
  for (let i = ids.length - 1; i >= 0; i--) {
    const m = await readManifest(projectRoot, ids[i]!).catch(() => null);
    if (m) return m;
  }
  return null;
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
 * Takes a checkpoint of the project tree. A full scan is a stat walk: a file whose size, mtime and
 * inode match the previous manifest keeps its blob without being read. A touched scan starts from
 * the previous manifest and looks only at the given paths.
 */
export async function takeCheckpoint(opts: CheckpointOptions): Promise<CheckpointResult> {
  const store = await ensureStore(opts.projectRoot);
  return withLock(join(store, 'checkpoint.lock'), async () => {
    const t0 = performance.now();
    const now = opts.now ?? Date.now;
    const config = await readStoreConfig(opts.projectRoot);
    const objects = objectStore(opts.projectRoot);
    const prev = await latestManifest(opts.projectRoot);
    const prevByPath = new Map<string, Entry>((prev?.entries ?? []).map((e) => [e[0], e]));
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
      const blob = await objects.putFile(join(opts.projectRoot, w.path), w.size);
      hashed++;
      if (!old || old[2] !== blob) newObjects++;
      return [w.path, 'f', blob, w.mode, w.size, w.mtimeMs, w.ino];
    };

    let entries: Entry[];
    let scan: Manifest['scan'];
    if (opts.touched && prev) {
      scan = 'touched';
      const map = new Map(prevByPath);
      for (const s of prev.skipped) skipped.push(s);
      for (const raw of new Set(opts.touched)) {
        const rel = raw.split('\\').join('/').replace(/^\.\//, '');
        if (!rel || rel.startsWith('../') || rel.startsWith('/')) continue;
        const i = skipped.findIndex((s) => s.path === rel);
        if (i !== -1) skipped.splice(i, 1);
        const st = await lstat(join(opts.projectRoot, rel)).catch(() => null);
        if (!st || (!st.isFile() && !st.isSymbolicLink()) || (await ignoredPath(opts.projectRoot, rel, false))) {
          map.delete(rel);
          continue;
        }
        const w: WalkEntry = st.isSymbolicLink()
          ? { path: rel, kind: 'symlink', size: 0, mode: 0o777, mtimeMs: st.mtimeMs, ino: st.ino, target: await readlink(join(opts.projectRoot, rel)) }
          : { path: rel, kind: 'file', size: st.size, mode: st.mode & 0o777, mtimeMs: st.mtimeMs, ino: st.ino };
        const e = await fileEntry(w);
        if (e) map.set(rel, e);
        else map.delete(rel);
        // A file in what was an empty directory: that directory is no longer empty.
        for (let p = rel; p.includes('/'); ) {
          p = p.slice(0, p.lastIndexOf('/'));
          if (map.get(p)?.[1] === 'd') map.delete(p);
        }
      }
      entries = [...map.values()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    } else {
      scan = 'full';
      const walked = await walkTree(opts.projectRoot);
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
      parent: prev?.id ?? null,
      transcript: opts.transcript ?? null,
      entries,
      skipped,
    };
    await writeManifest(opts.projectRoot, manifest, summarize(manifest, prev));
    return { manifest, hashed, newObjects, ms: performance.now() - t0 };
  });
}
