import { createHash } from 'node:crypto';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { StoredFile } from './adapter.js';

/**
 * Pieces every agent's `codeHistory` shares: where a path the store names falls, and the content
 * address Rewind's trees use. Pure, cheap to import.
 */

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The project-relative '/' path of a path the store names (absolute, or relative to the session's folder); null outside the project. */
export function insideProject(projectRoot: string, base: string, named: string): string | null {
  const abs = isAbsolute(named) ? named : join(base, named);
  const rel = relative(projectRoot, abs).split(sep).join('/');
  if (!rel || rel === '..' || rel.startsWith('../') || isAbsolute(rel)) return null;
  return rel;
}

/**
 * A snapshot in an agent's shadow git repository (OpenCode's and Kilo's snapshots, Gemini's
 * checkpoints) as project files: its paths are relative to `base` (the folder it was taken of);
 * those outside the project are named, links and submodules (`other`) left to the caller.
 */
export async function shadowSnapshotFiles(gitDir: string, commit: string, who: string, projectRoot: string, base: string) {
  const { readBlobs, readSnapshot } = await import('./shadow-git.js');
  const snap = await readSnapshot(gitDir, commit, who);
  const contents = await readBlobs(gitDir, snap.files.map((f) => f.blob), who);
  const files = new Map<string, StoredFile | null>();
  const byRef = new Map<string, Buffer>();
  const outside: string[] = [];
  for (const f of snap.files) {
    const rel = insideProject(projectRoot, base, f.path);
    if (rel === null) {
      outside.push(join(base, f.path));
      continue;
    }
    const data = contents.get(f.blob)!;
    const ref = sha256(data);
    byRef.set(ref, data);
    files.set(rel, { ref, size: data.length, mode: f.mode });
  }
  return { files, byRef, outside, other: snap.other };
}

/** A file name a store gives for its own blob: one plain name, never a path. */
export const plainName = (name: string): boolean => name.length > 0 && name !== '.' && name !== '..' && !/[\\/\0]/.test(name);

/**
 * Stores that keep, per prompt, the tracked files' backups as that prompt found them (Claude's
 * file-history snapshots, Qwen's): the state of each tracked file before `target`. A file tracked
 * at the target has its backup there; one first tracked later has its first backup (it was not
 * touched in between); one tracked before the target but absent from its snapshot (tracking starts
 * afresh after a compaction) is left out, as the agent's own rewind leaves it.
 */
export function trackedBefore<B>(live: string[], stateAt: (prompt: string) => Map<string, B>, target: string): Map<string, B> | null {
  const at = live.indexOf(target);
  if (at === -1) return null;
  const first = new Map<string, { backup: B; index: number }>();
  live.forEach((p, index) => {
    for (const [k, v] of stateAt(p)) if (!first.has(k)) first.set(k, { backup: v, index });
  });
  const atPrompt = stateAt(target);
  const out = new Map<string, B>();
  for (const [tracked, { backup, index }] of first) {
    if (!atPrompt.has(tracked) && index <= at) continue;
    out.set(tracked, atPrompt.get(tracked) ?? backup);
  }
  return out;
}
