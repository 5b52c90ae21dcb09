import { constants, copyFile, link, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * An agent that keeps file backups in `<root>/file-history/<session>/` (Claude Code, Qwen Code)
 * looks there under the session's own id: give a fork the same backups, hard-linked (no extra
 * disk), copied where links are not possible. Undo removes the fork's folder (journal
 * `fileHistoryDir`).
 */
export async function linkFileHistory(agentRoot: string, fromSession: string, toSession: string): Promise<string | null> {
  const from = join(agentRoot, 'file-history', fromSession);
  const names = await readdir(from).catch(() => null);
  if (!names || names.length === 0) return null;
  const to = join(agentRoot, 'file-history', toSession);
  await mkdir(to, { recursive: true, mode: 0o700 });
  for (const name of names) {
    const src = join(from, name);
    const st = await stat(src).catch(() => null);
    if (!st?.isFile()) continue;
    await link(src, join(to, name)).catch(async () => copyFile(src, join(to, name), constants.COPYFILE_EXCL).catch(() => undefined));
  }
  return to;
}

export async function removeFileHistoryDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
