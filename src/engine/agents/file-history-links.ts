import { constants, copyFile, link, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { requireId, requireInside } from '../guard.js';

/**
 * An agent that keeps file backups in `<root>/file-history/<session>/` (Claude Code, Qwen Code)
 * looks there under the session's own id: give a fork the same backups, hard-linked (no extra
 * disk), copied where links are not possible. Undo removes the fork's folder (journal
 * `fileHistoryDir`).
 *
 * Both ids come from session files: each must be an id, and both folders must be inside
 * `<root>/file-history/` once symlinks are resolved, or nothing is linked (a session id of
 * `../../../.ssh` would otherwise hand a stranger's files to the fork). Only regular files are
 * linked, never what a symlink points at.
 */
export async function linkFileHistory(agentRoot: string, fromSession: string, toSession: string): Promise<string | null> {
  requireId(fromSession, 'file history of a session id');
  requireId(toSession, 'file history for a fork id');
  const top = join(agentRoot, 'file-history');
  const from = join(top, fromSession);
  const fromSt = await lstat(from).catch(() => null);
  if (!fromSt?.isDirectory()) return null;
  await requireInside([top], from, 'file history');
  const names = await readdir(from).catch(() => null);
  if (!names || names.length === 0) return null;
  const to = join(top, toSession);
  await requireInside([top], to, 'file history');
  await mkdir(to, { recursive: true, mode: 0o700 });
  for (const name of names) {
    const src = join(from, name);
    const st = await lstat(src).catch(() => null);
    if (!st?.isFile()) continue;
    await link(src, join(to, name)).catch(async () => copyFile(src, join(to, name), constants.COPYFILE_EXCL).catch(() => undefined));
  }
  return to;
}

export async function removeFileHistoryDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
