import { constants, copyFile, link, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Claude's own code rewind looks in `file-history/<session>/`: give a fork the same backups,
 * hard-linked (no extra disk), copied where links are not possible.
 */
export async function linkFileHistory(claudeRoot: string, fromSession: string, toSession: string): Promise<string | null> {
  const from = join(claudeRoot, 'file-history', fromSession);
  const names = await readdir(from).catch(() => null);
  if (!names || names.length === 0) return null;
  const to = join(claudeRoot, 'file-history', toSession);
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
