import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { RewindError } from '../../errors.js';
import type { TreeState } from '../../store/tree-state.js';
import type { NativeBackup, SessionModel } from './model.js';
import { plainName, trackedBefore } from '../code-history-parts.js';
import { requireId } from '../../guard.js';

export interface NativeTarget {
  /** Tracked files as they were before the prompt (absent: the file did not exist then). */
  target: TreeState;
  /** Every path Claude tracks on the live path: the only ones a native restore touches. */
  coverage: Set<string>;
  /** Tracked files outside the project root: Claude would restore them, we do not. */
  outside: string[];
  /** blob sha256 -> backup file, for reading contents. */
  blobs: Map<string, string>;
  promptUuid: string;
}

/**
 * What `claude --resume <id> --rewind-files <prompt>` would put back, from Claude's own file
 * history: for each file tracked on the live path, the backup recorded for that prompt; a file first
 * tracked later gets its first backup; a null backup means the file did not exist (delete it).
 */
export async function nativeTarget(model: SessionModel, promptUuid: string, claudeRoot: string, projectRoot: string): Promise<NativeTarget> {
  const live = model.prompts.filter((p) => model.active.has(p.uuid));
  const at = live.findIndex((p) => p.uuid === promptUuid);
  if (at === -1) {
    const dead = model.prompts.some((p) => p.uuid === promptUuid);
    throw new RewindError('NO_CHECKPOINT', dead ? `prompt ${promptUuid} is on a dead branch: Claude's file history only follows the live path` : `no prompt ${promptUuid} in this session`);
  }
  const stateAt = (uuid: string): Map<string, NativeBackup> => {
    const snap = model.snapshots.get(uuid);
    const m = new Map<string, NativeBackup>();
    if (!snap) return m;
    for (const [k, v] of snap.snapshot) m.set(k, v);
    for (const [k, v] of snap.deltas) if (!m.has(k)) m.set(k, v);
    return m;
  };
  const backups = trackedBefore(live.map((p) => p.uuid), stateAt, promptUuid)!;
  const cwd = model.cwd ?? projectRoot;
  // The id and the backup names come from inside the transcript: an id and plain names, or nothing is read.
  const dir = join(claudeRoot, 'file-history', requireId(model.sessionId, "Claude's file history of a session id"));
  const target: TreeState = new Map();
  const coverage = new Set<string>();
  const outside: string[] = [];
  const blobs = new Map<string, string>();
  for (const [tracked, backup] of backups) {
    const abs = isAbsolute(tracked) ? tracked : join(cwd, tracked);
    const rel = relative(projectRoot, abs).split(sep).join('/');
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) {
      outside.push(abs);
      continue;
    }
    coverage.add(rel);
    if (backup.backupFileName === null) continue;
    if (!plainName(backup.backupFileName)) throw new RewindError('INVALID_TRANSCRIPT', `Claude's file history names a backup that is not a plain file name for ${tracked}: nothing was changed`);
    const file = join(dir, backup.backupFileName);
    const data = await readFile(file).catch(() => {
      throw new RewindError('NOT_FOUND', `Claude's backup ${backup.backupFileName} for ${tracked} is missing from ${dir}`);
    });
    const ref = createHash('sha256').update(data).digest('hex');
    blobs.set(ref, file);
    target.set(rel, { kind: 'f', ref, mode: 0o644, size: data.length });
  }
  return { target, coverage, outside, blobs, promptUuid };
}
