import { readFile, readdir, readlink, realpath, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { writeFileAtomic } from '../../io/atomic-write.js';
import { foldWal } from '../../io/sqlite-wal-fold.js';

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
 * Written with sql.js (WebAssembly, installs with plain `npm ci` everywhere). The database is in WAL
 * mode and sql.js cannot share SQLite's locks, so it is written only while no process has it open:
 * on Linux no process's `/proc/<pid>/fd` names it or its `-wal`/`-shm` (`codex exec` often exits
 * leaving both behind), elsewhere neither is there. The WAL's committed frames are folded in, the
 * whole file replaced atomically after a last look, and the folded `-wal`/`-shm` removed.
 */

const TABLES = ['thread_items', 'thread_turns', 'thread_realtime_items', 'thread_history_projection_state'];
export const THREAD_HISTORY_DB = 'thread_history_1.sqlite';

let engine: Promise<SqlJsStatic> | null = null;
function sqlJs(): Promise<SqlJsStatic> {
  engine ??= import('sql.js').then((m) => m.default());
  return engine;
}

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

/** Drops Codex's projection of `threadId` so it is rebuilt from the rollout; `busy` (nothing written) while Codex has the database open. */
export async function clearThreadProjection(home: string, threadId: string): Promise<ProjectionCleared> {
  const before = await stat(join(home, THREAD_HISTORY_DB)).catch(() => null);
  if (!before?.isFile()) return { cleared: 0 };
  // /proc names files by their real path.
  const db = await realpath(join(home, THREAD_HISTORY_DB));
  const busy = { busy: `Codex has ${db} open: its turn list (the TUI's view on resume) may show the dropped turns until Codex reloads the thread` };
  if (await inUse(db)) return busy;
  const walBefore = await readOrNull(`${db}-wal`);
  const bytes = Buffer.from(foldWal(await readFile(db), walBefore));
  // WAL mode at rest (header bytes 18-19 = 2) with nothing in a WAL: opened in memory as a rollback
  // database, written back in WAL mode as Codex left it.
  const wal = bytes[18] === 2 && bytes[19] === 2;
  if (wal) bytes[18] = bytes[19] = 1;
  const SQL = await sqlJs();
  const h = new SQL.Database(bytes);
  let out: Buffer;
  let cleared = 0;
  try {
    const present = new Set((h.exec("select name from sqlite_master where type = 'table'")[0]?.values ?? []).map((r) => String(r[0])));
    for (const t of TABLES) {
      if (!present.has(t)) continue;
      h.run(`delete from "${t}" where thread_id = ?`, [threadId]);
      cleared += h.getRowsModified();
    }
    if (cleared === 0) return { cleared: 0 };
    out = Buffer.from(h.export());
  } finally {
    h.close();
  }
  if (wal) out[18] = out[19] = 2;
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
  return { cleared };
}
