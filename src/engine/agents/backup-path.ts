import { basename, join, resolve } from 'node:path';
import { RewindError } from '../errors.js';
import { isInside, isSafeId, requireId } from '../guard.js';
import { storeDir } from '../project.js';

/**
 * Where every agent's in-place rewrite keeps the transcript it replaced, and where undo keeps the
 * one it replaces: `<project>/.agent/rewind/transcript-backup/`. A session id comes from inside the
 * file (data, not a path): it names a file here only once it is an id, and the result is checked
 * to be in that folder. One place, so no agent's writer can build the path its own way.
 */
export function backupDirOf(projectRoot: string): string {
  return join(storeDir(resolve(projectRoot)), 'transcript-backup');
}

const stampOf = (time: number) => new Date(time).toISOString().replace(/[:.]/g, '-');

function inBackupDir(projectRoot: string, name: string): string {
  const dir = backupDirOf(projectRoot);
  const path = join(dir, name);
  if (!isInside(dir, path) || basename(path) !== name) throw new RewindError('UNSAFE_PATH', `refusing a backup outside ${dir}: ${name}; nothing was written`);
  return path;
}

/** The backup of an in-place rewrite: `<session id>-<time>.jsonl`. Throws UNSAFE_PATH for an id that is not one. */
export function backupPathFor(projectRoot: string, sessionId: string, time: number): string {
  requireId(sessionId, 'a session id');
  return inBackupDir(projectRoot, `${sessionId}-${stampOf(time)}.jsonl`);
}

/** What undo keeps of a transcript it replaces (one the session went on in): `<id>-before-undo-<time>.jsonl`. */
export function beforeUndoPathFor(projectRoot: string, sessionId: string, time: number): string {
  requireId(sessionId, 'a session id');
  return inBackupDir(projectRoot, `${sessionId}-before-undo-${stampOf(time)}.jsonl`);
}

/**
 * The id an agent's writer names files by: the session's own id when it is one, else a one-line
 * refusal before anything is written (a file whose id is `../../x` is not a session we can name).
 */
export function writerSessionId(id: unknown, transcriptPath: string): string {
  if (isSafeId(id)) return id;
  throw new RewindError('UNSAFE_PATH', `refusing to rewind ${transcriptPath}: its session id ${JSON.stringify(id)} is not a valid id (letters, digits, "-" and "_"); nothing was written`);
}
