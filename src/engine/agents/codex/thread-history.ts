import { copyFile, mkdtemp, readFile, readdir, readlink, realpath, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../io/atomic-write.js';

/**
 * Codex 0.169 and 0.171 keep a projection of every rollout's turns and items in
 * `$CODEX_HOME/thread_history_1.sqlite` (`thread_turns`, `thread_items`, `thread_realtime_items`,
 * `thread_history_projection_state` = the byte offset and ordinal projected so far). The rollout is
 * canonical (the model's history on resume is rebuilt from it), but `thread/resume` and
 * `thread/turns/list` of the app-server (what the TUI shows on `codex resume <id>`) answer from the
 * projection, which these releases extend from the stored offset without noticing a rewritten file:
 * after an in-place rewrite they kept showing the dropped turns (measured with 0.171.0). With the
 * thread's rows gone Codex projects the rollout again from its start when it loads the thread.
 *
 * Written with node-sqlite3-wasm (SQLite in WebAssembly, the library the session stores are read
 * with; installs with plain `npm ci` everywhere). Its locks (a `<db>.lock` folder) are not the ones
 * Codex's SQLite takes, so the database is written only while no process has it open: on Linux no
 * process's `/proc/<pid>/fd` names it or its `-wal`/`-shm` (`codex exec` often exits leaving both
 * behind), elsewhere neither is there. The database and its `-wal` are copied to a scratch folder
 * and opened there with `locking_mode=exclusive` (that VFS has no shared memory; SQLite then replays
 * the WAL's committed frames itself), the rows deleted, and the closing checkpoint folds everything
 * into the copy; the copy replaces the database atomically after a last look, and the folded
 * `-wal`/`-shm` are removed.
 */

const TABLES = ['thread_items', 'thread_turns', 'thread_realtime_items', 'thread_history_projection_state'];
export const THREAD_HISTORY_DB = 'thread_history_1.sqlite';

const exists = async (p: string) => !!(await stat(p).catch(() => null));

/** Whether a process has one of `paths` open: from /proc on Linux, null (cannot tell) elsewhere. */
async function openedByAnyProcess(paths: string[]): Promise<boolean | null> {
  if (process.platform !== 'linux') return null;
  const want = new Set(paths);
  for (const pid of (await readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n))) {
    for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
      const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => null);
      if (target !== null && want.has(target)) return true;
    }
  }
  return false;
}

/** Another process has the database open, or (where that cannot be told) may have: its `-wal` or `-shm` is there. */
async function inUse(db: string): Promise<boolean> {
  const open = await openedByAnyProcess([db, `${db}-wal`, `${db}-shm`]);
  if (open !== null) return open;
  return (await exists(`${db}-wal`)) || (await exists(`${db}-shm`));
}

async function readOrNull(path: string): Promise<Buffer | null> {
  return readFile(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
}

export type ProjectionCleared = { cleared: number } | { busy: string };

/**
 * The keys Codex files a rollout's projection under: its thread id, and for a revert's generation
 * file (`..._<generation>.jsonl`) the generation id too (measured with 0.171.0: the generation's own
 * turns are projected under the generation id, the prefix it inherits under the thread id).
 */
export function projectionKeys(threadId: string, generation: string | null): string[] {
  return generation && generation !== threadId ? [threadId, generation] : [threadId];
}

/** Drops Codex's projection of a thread (its `keys`) so it is rebuilt from the rollout; `busy` (nothing written) while Codex has the database open. */
export async function clearThreadProjection(home: string, keys: string | readonly string[]): Promise<ProjectionCleared> {
  const ids = typeof keys === 'string' ? [keys] : keys;
  const before = await stat(join(home, THREAD_HISTORY_DB)).catch(() => null);
  if (!before?.isFile()) return { cleared: 0 };
  // /proc names files by their real path.
  const db = await realpath(join(home, THREAD_HISTORY_DB));
  const busy = { busy: `Codex has ${db} open: its turn list (the TUI's view on resume) may show the dropped turns until Codex reloads the thread` };
  if (await inUse(db)) return busy;
  const walBefore = await readOrNull(`${db}-wal`);
  const cleared = await deleteRowsInCopy(db, walBefore, ids);
  if (cleared.rows === 0) return { cleared: 0 };
  const out = cleared.bytes;
  try {
    await writeFileAtomic(db, (fh) => fh.writeFile(out).then(() => undefined), {
      mode: before.mode & 0o777,
      beforeRename: async () => {
        const now = await stat(db).catch(() => null);
        const walNow = await readOrNull(`${db}-wal`);
        const walSame = walBefore === null ? walNow === null : walNow !== null && walNow.equals(walBefore);
        if (!now || now.size !== before.size || now.mtimeMs !== before.mtimeMs || !walSame || (await inUse(db))) throw new Error('busy');
      },
    });
  } catch (e) {
    if ((e as Error).message === 'busy') return busy;
    throw e;
  }
  // What they held is in the new file: left, SQLite would replay the old frames over it.
  for (const f of [`${db}-wal`, `${db}-shm`]) await unlink(f).catch(() => undefined);
  return { cleared: cleared.rows };
}

/** The database with the rows of `ids` deleted, made in a scratch copy (with its WAL, which SQLite replays): the rows deleted and the new bytes. */
async function deleteRowsInCopy(db: string, wal: Buffer | null, ids: readonly string[]): Promise<{ rows: number; bytes: Buffer }> {
  const scratch = await mkdtemp(join(tmpdir(), 'rewind-codex-db-'));
  try {
    const copy = join(scratch, THREAD_HISTORY_DB);
    await copyFile(db, copy);
    if (wal) await writeFileAtomic(`${copy}-wal`, (fh) => fh.writeFile(wal).then(() => undefined));
    const { Database } = (await import('node-sqlite3-wasm')).default;
    const h = new Database(copy, { fileMustExist: true });
    let rows = 0;
    try {
      // No shared memory in this VFS: the WAL index is kept in SQLite's heap, and the WAL read from the file.
      h.exec('pragma locking_mode=exclusive');
      const present = new Set((h.all("select name from sqlite_master where type = 'table'") as { name: string }[]).map((r) => r.name));
      h.exec('begin immediate');
      for (const t of TABLES) if (present.has(t)) for (const id of ids) rows += h.run(`delete from "${t}" where thread_id = ?`, [id]).changes;
      h.exec('commit');
    } finally {
      // The last connection's close checkpoints the WAL into the copy and removes it.
      h.close();
    }
    if (await exists(`${copy}-wal`)) throw new Error('its write-ahead log could not be folded in');
    return { rows, bytes: await readFile(copy) };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
