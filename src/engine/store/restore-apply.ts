import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, readdir, rename, rmdir, symlink, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RewindError } from '../errors.js';
import type { RestorePlan } from './restore-plan.js';
import { checkParents, checkRelPath } from './safe-path.js';

export interface ApplyResult {
  written: number;
  deleted: number;
}

/** Checks every path of a plan before anything is written: one bad path and nothing happens. */
export async function validatePlanPaths(root: string, plan: RestorePlan): Promise<void> {
  for (const c of plan.changes) {
    checkRelPath(c.path);
    await checkParents(root, c.path);
  }
}

async function ensureDirs(root: string, rel: string): Promise<void> {
  const parts = rel.split('/');
  let cur = root;
  for (let i = 0; i < parts.length - 1; i++) {
    cur = join(cur, parts[i]!);
    const st = await lstat(cur).catch(() => null);
    if (!st) await mkdir(cur, { mode: 0o755 });
    else if (!st.isDirectory() || st.isSymbolicLink()) throw new RewindError('UNSAFE_PATH', `not a directory: ${cur}`);
  }
}

/**
 * Writes a plan to disk: only paths whose content differs, each by temp file + rename (never
 * through a symlink), exec bits and symlinks as recorded, then deletes what the target lacks and
 * the directories that leaves empty.
 */
export async function applyPlan(root: string, plan: RestorePlan, readBlob: (ref: string) => Promise<Buffer>, keepDirs: Set<string> = new Set()): Promise<ApplyResult> {
  await validatePlanPaths(root, plan);
  let written = 0;
  let deleted = 0;
  const emptied = new Set<string>();
  for (const c of plan.changes) {
    const abs = join(root, c.path);
    if (c.action === 'delete') {
      const st = await lstat(abs).catch(() => null);
      if (st?.isDirectory()) await rmdir(abs).catch(() => undefined);
      else if (st) await unlink(abs);
      deleted++;
      emptied.add(dirname(c.path));
      continue;
    }
    const t = c.after!;
    await ensureDirs(root, c.path);
    await checkParents(root, c.path);
    if (t.kind === 'd') {
      const st = await lstat(abs).catch(() => null);
      if (st && !st.isDirectory()) await unlink(abs);
      if (!st?.isDirectory()) await mkdir(abs, { mode: t.mode || 0o755 });
      continue;
    }
    const before = await lstat(abs).catch(() => null);
    if (before?.isDirectory()) throw new RewindError('CONFLICT', `${c.path} is a directory on disk; move it away and try again`);
    const tmp = join(dirname(abs), `.${randomBytes(6).toString('hex')}.rewind-tmp`);
    if (t.kind === 'l') {
      await symlink(t.ref, tmp);
    } else {
      const data = await readBlob(t.ref);
      const fh = await open(tmp, 'wx', t.mode & 0o777);
      try {
        await fh.writeFile(data);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await chmod(tmp, t.mode & 0o777);
    }
    try {
      await rename(tmp, abs);
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
    written++;
  }
  // Directories a delete left empty go too (as git would leave them), up to the root.
  for (let d of [...emptied].sort((a, b) => b.length - a.length)) {
    while (d && d !== '.') {
      const abs = join(root, d);
      const names = await readdir(abs).catch(() => null);
      if (!names || names.length > 0 || keepDirs.has(d)) break;
      await rmdir(abs).catch(() => undefined);
      d = dirname(d);
    }
  }
  return { written, deleted };
}
