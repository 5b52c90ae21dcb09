import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
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
 * Written with sql.js (WebAssembly, installs with plain `npm ci` everywhere). The database is in WAL
 * mode; sql.js cannot share its locks, so it is written only while no process has it open (no
 * `-wal` or `-shm` beside it), replaced atomically, and looked at again right before the rename.
 */

const TABLES = ['thread_items', 'thread_turns', 'thread_realtime_items', 'thread_history_projection_state'];
export const THREAD_HISTORY_DB = 'thread_history_1.sqlite';

let engine: Promise<SqlJsStatic> | null = null;
function sqlJs(): Promise<SqlJsStatic> {
  engine ??= import('sql.js').then((m) => m.default());
  return engine;
}

const exists = async (p: string) => !!(await stat(p).catch(() => null));

/** Another process has the database open (or left it mid-write): its `-wal` or `-shm` is there. */
async function inUse(db: string): Promise<boolean> {
  return (await exists(`${db}-wal`)) || (await exists(`${db}-shm`));
}

export type ProjectionCleared = { cleared: number } | { busy: string };

/** Drops Codex's projection of `threadId` so it is rebuilt from the rollout; `busy` (nothing written) while Codex has the database open. */
export async function clearThreadProjection(home: string, threadId: string): Promise<ProjectionCleared> {
  const db = join(home, THREAD_HISTORY_DB);
  const before = await stat(db).catch(() => null);
  if (!before?.isFile()) return { cleared: 0 };
  const busy = { busy: `Codex has ${db} open: its turn list (the TUI's view on resume) may show the dropped turns until Codex reloads the thread` };
  if (await inUse(db)) return busy;
  const bytes = await readFile(db);
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
        if (!now || now.size !== before.size || now.mtimeMs !== before.mtimeMs || (await inUse(db))) throw new Error('busy');
      },
    });
  } catch (e) {
    if ((e as Error).message === 'busy') return busy;
    throw e;
  }
  return { cleared };
}
