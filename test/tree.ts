import { lstat, readFile, readdir, readlink } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Everything in a tree (minus our store and .git) as comparable strings, with modes and links. */
export async function snapshotTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    const abs = join(e.parentPath, e.name);
    const rel = relative(root, abs);
    if (rel.startsWith('.agent') || rel.startsWith('.git/') || rel === '.git') continue;
    const st = await lstat(abs);
    if (st.isSymbolicLink()) out[rel] = `link:${await readlink(abs)}`;
    else if (st.isDirectory()) out[rel] = 'dir';
    else out[rel] = `${(st.mode & 0o111) !== 0 ? 'x' : '-'}:${(await readFile(abs)).toString('base64')}`;
  }
  return out;
}
