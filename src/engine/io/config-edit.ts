import { constants } from 'node:fs';
import { access, lstat, mkdir, realpath, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { RewindError } from '../errors.js';
import { writeBufferAtomic } from './atomic-write.js';
import { readConfigFile } from './config-file.js';
import { acquireLock } from './lock-file.js';
import { assertOwnFileSlot, ensureOwnDir } from './own-file.js';

/**
 * The one way Rewind edits an agent's config (hooks, MCP servers, Codex's trust): under one lock
 * per config file, the text read again inside the lock, the file as it was kept beside it
 * (`.rewind-backup`, never written through a link), the new text written atomically with the
 * file's own mode. A user's symlinked config (dotfiles) is edited at its target; inside a project
 * (`allowedRoot`), a link or folder that leads out of it is refused. A FIFO, a folder or an
 * oversized file in the config's place is refused in one line, never opened for a blocking read.
 */

/** Agents' configs can be big (Claude's ~/.claude.json keeps every project's history), never this big. */
export const MAX_AGENT_CONFIG_BYTES = 64 * 1024 * 1024;

/**
 * The text of an agent's config (null: no file); anything but a regular file of a sane size is
 * refused, and so is one that is not UTF-8: its text read as UTF-8 and written back would have
 * every byte that is not (a Latin-1 `é`) replaced, a change to the user's file beyond Rewind's entries.
 */
export async function readAgentConfig(path: string, max = MAX_AGENT_CONFIG_BYTES): Promise<string | null> {
  const r = await readConfigFile(path, max);
  if (r.kind === 'missing') return null;
  if (r.kind === 'refused') throw new RewindError(r.regular ? 'IO' : 'UNSAFE_PATH', `cannot read ${path}: ${r.why}; nothing was changed`);
  if (!r.utf8) {
    throw new RewindError('IO', `${path} is not UTF-8 text: Rewind would change its bytes, so nothing was changed (save it as UTF-8 first)`);
  }
  return r.text;
}

const inside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Where the config's text lives: the file itself, or the regular file the user's link points at.
 * Within `allowedRoot` (a project's config) the folders on the way are never links and a linked
 * config must point inside the project.
 */
export async function resolveConfigTarget(file: string, allowedRoot: string | null): Promise<{ target: string; linked: boolean }> {
  if (allowedRoot) {
    const rel = relative(allowedRoot, dirname(file));
    if (rel.startsWith('..') || isAbsolute(rel)) throw new RewindError('UNSAFE_PATH', `${file} is outside ${allowedRoot}: nothing was changed`);
    await ensureOwnDir(allowedRoot, rel, { create: false });
  }
  const st = await lstat(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return null;
    throw e;
  });
  if (!st?.isSymbolicLink()) return { target: file, linked: false };
  const real = await realpath(file).catch(() => null);
  if (!real) throw new RewindError('UNSAFE_PATH', `${file} is a link to nothing: nothing was changed`);
  if (!(await stat(real)).isFile()) throw new RewindError('UNSAFE_PATH', `${file} is a link to something that is not a regular file (${real}): nothing was changed`);
  if (allowedRoot && !inside(await realpath(allowedRoot).catch(() => allowedRoot), real)) {
    throw new RewindError('UNSAFE_PATH', `${file} is a link out of the project (${real}): Rewind does not write through a link it did not make; nothing was changed`);
  }
  return { target: real, linked: true };
}

export interface ConfigEditContext {
  /** The config is the user's link: its target is edited, and never removed. */
  linked: boolean;
  /** The text of `<config>.rewind-backup` (the config before Rewind's last change), null when none. */
  backupText(): Promise<string | null>;
}

/** `next`: the new text; null removes the file (never a linked one); undefined changes nothing. */
export type ConfigEditFn<R> = (text: string | null, ctx: ConfigEditContext) => Promise<{ next: string | null | undefined; result: R }> | { next: string | null | undefined; result: R };

export interface ConfigEditResult<R> {
  result: R;
  changed: boolean;
  /** `<config>.rewind-backup`, when the file was there and changed. */
  backup: string | null;
  /** The config's text before and after (a preview of the change): null before for a file not there, null after for a file removed. */
  before: string | null;
  after: string | null;
}

export const backupPathOf = (file: string) => `${file}.rewind-backup`;

/**
 * `own`: the file is Rewind's own, written whole (a plugin file): a link or anything but a regular
 * file in its place is refused (never followed), and no backup is kept (there is nothing of the
 * user's to keep), so removing it leaves the folder as it was.
 */
export async function editAgentConfig<R>(file: string, opts: { allowedRoot: string | null; dryRun?: boolean; newMode?: number; own?: boolean }, edit: ConfigEditFn<R>): Promise<ConfigEditResult<R>> {
  if (opts.own) await assertOwnFileSlot(file);
  const { target, linked } = await resolveConfigTarget(file, opts.allowedRoot);
  const backup = backupPathOf(file);
  // Refused before anything is read or written: a link (or anything but a file) where the backup goes.
  if (!opts.own) await assertOwnFileSlot(backup);
  const ctx: ConfigEditContext = { linked, backupText: () => readAgentConfig(backup).catch(() => null) };
  const first = await readAgentConfig(target);
  if (opts.dryRun || first === null) {
    const { next, result } = await edit(first, ctx);
    const changed = next !== undefined && next !== first;
    // A dry run, or nothing to do on a missing file (uninstall): no folder made, no lock taken.
    if (opts.dryRun || !changed) return { result, changed: opts.dryRun ? changed : false, backup: null, before: first, after: next === undefined ? first : next };
  }
  // A config the user made read-only is one they keep from changes: a rename would replace it anyway.
  if (first !== null && !(await access(target, constants.W_OK).then(() => true, () => false))) {
    throw new RewindError('IO', `${target} is read-only: nothing was changed (make it writable to let Rewind edit it)`);
  }
  if (!linked) {
    if (opts.allowedRoot) await ensureOwnDir(opts.allowedRoot, relative(opts.allowedRoot, dirname(file)), { mode: 0o755 });
    else await mkdir(dirname(file), { recursive: true });
  }
  const lock = await acquireLock(`${target}.rewind-lock`, {
    waitMs: 30_000,
    maxAgeMs: 2 * 60_000,
    busy: (o) => new RewindError('IO', `${target} is being changed by another Rewind${o ? ` (pid ${o.pid})` : ''}: try again`),
  });
  try {
    // Read inside the lock: a concurrent installer's change is in what this one edits.
    const text = await readAgentConfig(target);
    const mode = (await stat(target).catch(() => null))?.mode;
    const { next, result } = await edit(text, ctx);
    if (next === undefined || next === text) return { result, changed: false, backup: null, before: text, after: text };
    if (opts.own) await assertOwnFileSlot(target);
    else {
      await assertOwnFileSlot(backup);
      if (text !== null) await writeBufferAtomic(backup, text, { mode: 0o600 });
    }
    if (next === null && !linked) await unlink(target).catch(() => undefined);
    else await writeBufferAtomic(target, next ?? '', { mode: mode !== undefined ? mode & 0o7777 : (opts.newMode ?? 0o600) });
    return { result, changed: true, backup: text !== null && !opts.own ? backup : null, before: text, after: next === null && !linked ? null : (next ?? '') };
  } finally {
    await lock.release();
  }
}
