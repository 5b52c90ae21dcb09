import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, readdir, rename, rmdir, symlink, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isRewindError, RewindError } from '../errors.js';
import type { RestorePlan } from './restore-plan.js';
import { checkRelPath } from './safe-path.js';
import { abandonIntent, beginIntent, markApplied, rollBack, type Intent, type IntentSpec } from './restore-intent.js';

export interface ApplyResult {
  written: number;
  deleted: number;
}

/** Test seam: runs before each staged write (a full disk is simulated by throwing ENOSPC here). */
export type WriteHook = (dest: string) => Promise<void>;

/** Modes we are willing to set: permission bits only, never setuid/setgid/sticky (a directory stays usable by its owner). */
export const fileMode = (m: number) => m & 0o777;
const dirMode = (m: number) => (m & 0o777) | 0o700;

const fail = (code: 'UNSAFE_PATH' | 'CONFLICT', msg: string) => new RewindError(code, `${msg}; nothing was changed`);

/**
 * Checks every path and kind of a plan before anything is written: one bad path and nothing
 * happens. A non-directory on the way to a path, or a directory where a file goes, is fine only
 * when the plan itself removes it (a file that became a directory, or the reverse).
 */
export async function validatePlanPaths(root: string, plan: RestorePlan): Promise<void> {
  const byPath = new Map(plan.changes.map((c) => [c.path, c]));
  const deleted = new Set(plan.changes.filter((c) => c.action === 'delete' || (c.after && c.after.kind !== c.before?.kind)).map((c) => c.path));
  for (const c of plan.changes) {
    checkRelPath(c.path);
    const parts = c.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      const st = await lstat(join(root, sub)).catch(() => null);
      if (!st) break; // created later, as a real directory
      if (st.isSymbolicLink()) throw fail('UNSAFE_PATH', `refusing to write through a symlinked directory: ${sub}`);
      if (!st.isDirectory() && !st.isSymbolicLink()) {
        const p = byPath.get(sub);
        if (!p || (p.after && p.after.kind !== 'd')) throw fail('CONFLICT', `${sub} is a file on disk where the checkpoint has a directory; move it away and try again`);
        break;
      }
    }
    if (c.after && c.after.kind !== 'd') {
      const st = await lstat(join(root, c.path)).catch(() => null);
      if (st?.isDirectory()) {
        // Only if everything in it goes with this plan.
        const inside = await readdir(join(root, c.path), { recursive: true, withFileTypes: true });
        const stays = inside.filter((e) => !e.isDirectory()).map((e) => join(e.parentPath, e.name).slice(root.length + 1).split('\\').join('/')).filter((p) => !deleted.has(p));
        if (stays.length) throw fail('CONFLICT', `${c.path} is a directory on disk (holding ${stays[0]}) where the checkpoint has a file; move it away and try again`);
      }
    }
  }
}

/** Temp files are named so a later run can find and remove them. */
export const TEMP_SUFFIX = '.rewind-tmp';

async function existingDir(root: string, rel: string): Promise<string> {
  let d = dirname(rel);
  while (d && d !== '.') {
    const st = await lstat(join(root, d)).catch(() => null);
    if (st?.isDirectory()) return join(root, d);
    d = dirname(d);
  }
  return root;
}

function describeWriteError(e: unknown, rel: string): Error {
  if (isRewindError(e)) return e;
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ENOSPC') return new RewindError('IO', `no space left on the device writing ${rel}; nothing was changed`);
  if (err?.code === 'EDQUOT') return new RewindError('IO', `disk quota exceeded writing ${rel}; nothing was changed`);
  if (err?.code === 'EACCES' || err?.code === 'EPERM') return new RewindError('UNREADABLE', `permission denied writing ${rel}; nothing was changed`);
  if (typeof err?.code === 'string') return new RewindError('IO', `${err.code} writing ${rel}; nothing was changed`);
  return e as Error;
}

/**
 * Writes a plan to disk, all or nothing. Every path and kind is checked first; new contents are
 * staged in temp files (in the target's directory where it exists); then, with `intent` given, an
 * intent is recorded (a crash from there on is rolled back by the next run) and only renames,
 * deletes and mkdirs remain. Exec bits and symlinks as recorded; directories a delete left empty go.
 */
export async function applyPlan(
  root: string,
  plan: RestorePlan,
  readBlob: (ref: string) => Promise<Buffer>,
  keepDirs: Set<string> = new Set(),
  opts: { intent?: IntentSpec; writeHook?: WriteHook; onIntent?: (i: Intent) => void } = {},
): Promise<ApplyResult> {
  await validatePlanPaths(root, plan);
  // Temp names are fixed first, so the intent can name them before any is written: a run killed
  // while staging leaves nothing the next run cannot find.
  const staged: { rel: string; tmp: string }[] = [];
  for (const c of plan.changes) {
    if (c.after && c.after.kind !== 'd') staged.push({ rel: c.path, tmp: join(await existingDir(root, c.path), `.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`) });
  }
  const tx = opts.intent
    ? await beginIntent(root, opts.intent, plan.changes.map((c) => c.path), staged.map((s) => s.tmp)).catch((e: unknown) => {
        throw describeWriteError(e, '.agent/rewind/pending');
      })
    : null;
  const byPath = new Map(plan.changes.map((c) => [c.path, c]));
  try {
    for (const s of staged) {
      const t = byPath.get(s.rel)!.after!;
      try {
        await opts.writeHook?.(s.rel);
        if (t.kind === 'l') {
          await symlink(t.ref, s.tmp);
          continue;
        }
        const data = await readBlob(t.ref);
        const fh = await open(s.tmp, 'wx', fileMode(t.mode));
        try {
          await fh.writeFile(data);
          await fh.sync();
        } finally {
          await fh.close();
        }
        await chmod(s.tmp, fileMode(t.mode));
      } catch (e) {
        throw describeWriteError(e, s.rel);
      }
    }
  } catch (e) {
    for (const s of staged) await unlink(s.tmp).catch(() => undefined);
    if (tx) await abandonIntent(root, tx).catch(() => undefined);
    throw e;
  }
  if (tx) opts.onIntent?.(tx);
  try {
    const r = await commit(root, plan, new Map(staged.map((s) => [s.rel, s.tmp])), keepDirs);
    if (tx) await markApplied(root, tx);
    return r;
  } catch (e) {
    // Staging is done, so this is rare (a disk pulled, permissions changed under us): put back
    // what was already replaced, from the pre-restore checkpoint.
    for (const s of staged) await unlink(s.tmp).catch(() => undefined);
    if (tx) await rollBack(root, tx).catch(() => undefined);
    throw describeWriteError(e, (e as NodeJS.ErrnoException).path?.slice(root.length + 1) ?? 'the project');
  }
}

/** The part after staging: only renames, deletes and mkdirs. */
async function commit(root: string, plan: RestorePlan, tmpOf: Map<string, string>, keepDirs: Set<string>): Promise<ApplyResult> {
  let written = 0;
  let deleted = 0;
  const emptied = new Set<string>();
  // Deepest first: a directory's contents go before the directory (a directory that becomes a file).
  const removals = plan.changes.filter((c) => c.action === 'delete' || (c.before && c.after && c.before.kind !== c.after.kind)).sort((a, b) => b.path.length - a.path.length);
  for (const c of removals) {
    const abs = join(root, c.path);
    const st = await lstat(abs).catch(() => null);
    // Validation made sure only empty directories are left in one that goes.
    if (st?.isDirectory()) await removeEmptyTree(abs);
    else if (st) await unlink(abs);
    if (c.action === 'delete') deleted++;
    emptied.add(dirname(c.path));
  }
  for (const c of plan.changes) {
    const t = c.after;
    if (!t) continue;
    const abs = join(root, c.path);
    await ensureDirs(root, c.path);
    if (t.kind === 'd') {
      const st = await lstat(abs).catch(() => null);
      if (!st?.isDirectory()) await mkdir(abs, { mode: dirMode(t.mode) });
      continue;
    }
    // A directory where a file goes (validation made sure nothing but emptied directories is left in it).
    if ((await lstat(abs).catch(() => null))?.isDirectory()) await removeEmptyTree(abs);
    await rename(tmpOf.get(c.path)!, abs);
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

/** Removes a directory holding only (empty) directories; a file that appeared since validation stops it. */
async function removeEmptyTree(abs: string): Promise<void> {
  for (const e of await readdir(abs, { withFileTypes: true })) {
    if (e.isDirectory() && !e.isSymbolicLink()) await removeEmptyTree(join(abs, e.name));
  }
  await rmdir(abs);
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
