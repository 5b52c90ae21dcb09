import { cp, mkdir, open, readFile, readdir, realpath, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { codex } from './adapter.js';
import { parseRollout } from './rollout.js';
import { rewindRollout } from './rewind.js';
import { clearThreadProjection } from './thread-history.js';
import sqlite from 'node-sqlite3-wasm';

const { Database } = sqlite;

/** A session the real Codex CLI 0.171.0 wrote (offline, scripted model): three prompts, two shell calls. */
const ID = '01a21eac-cb05-71e1-9656-5740224a2604';
const ROLLOUT = join(FIXTURES, 'codex-0.171', 'sessions', '2026', '11', '27', `rollout-2026-11-27T20-22-50-${ID}.jsonl`);

describe('Codex CLI 0.171 rollouts', () => {
  it('are read like 0.169 ones: prompts from the history items, their shell calls, every line an ordinal', async () => {
    const t = await parseRollout(ROLLOUT);
    expect(t.session).toMatchObject({ id: ID, version: '0.171.0', cwd: '/home/dev/projects/demo' });
    expect(t.prompts.map((p) => p.text)).toEqual(['WRITE notes/a.txt alpha-one', 'BASH echo gamma >> notes/a.txt', 'plain question three']);
    expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['exec_command'], ['exec_command'], []]);
    expect(t.issues).toEqual([]);
    const ordinals = (await readFile(ROLLOUT, 'utf8')).trimEnd().split('\n').map((l) => (JSON.parse(l) as { ordinal: number }).ordinal);
    expect(ordinals).toEqual(ordinals.map((_, i) => i));
  });

  it('0.171 is judged (writable); a newer minor is read only, in one line naming it and the command that judges it', async () => {
    expect(await codex.readOnlyReason!(ROLLOUT)).toBeNull();
    const dir = await tempDir('rewind-codex171-');
    const newer = join(dir, `rollout-2026-11-27T20-22-50-${ID}.jsonl`);
    await writeFile(newer, (await readFile(ROLLOUT, 'utf8')).replace('"cli_version":"0.171.0"', '"cli_version":"0.172.0"'));
    expect(await codex.readOnlyReason!(newer)).toBe(
      'This Codex session is read only: written by Codex CLI 0.172.0, newer than 0.171.0, the last version Rewind was checked against: shown, not rewritten (`npm run conformance -- --latest` judges it)',
    );
  });

  it('in place: Codex\'s turn projection of the thread (thread_history_1.sqlite) is dropped, so it is rebuilt from the rewritten rollout; other threads keep theirs', async () => {
    const { home, rollout, project } = await copyHome();
    const db = join(home, 'thread_history_1.sqlite');
    // Another thread's row, to be kept.
    await sql(db, (h) => h.run("insert into thread_history_projection_state values ('other-thread', 10, 2)"));
    expect(await rowsFor(db, ID)).toBeGreaterThan(0);

    const out = await rewindRollout({ transcriptPath: rollout, n: 1, mode: 'in-place', projectRoot: project });
    expect(out.warnings.filter((w) => w.includes('thread_history_1.sqlite'))).toEqual([]);
    const after = await readFile(db);
    expect(await rowsFor(db, ID)).toBe(0);
    expect(await rowsFor(db, 'other-thread')).toBe(1);
    // Left in WAL mode, as Codex keeps it.
    expect([after[18], after[19]]).toEqual([2, 2]);
    expect((await parseRollout(rollout)).prompts.map((p) => p.text)).toEqual(['WRITE notes/a.txt alpha-one', 'BASH echo gamma >> notes/a.txt']);
  });

  it.runIf(process.platform === 'linux')('in place while a process has the database open: the rollout is rewritten, the database left alone, and the user told', async () => {
    const { home, rollout, project } = await copyHome();
    const db = join(home, 'thread_history_1.sqlite');
    const before = await readFile(db);
    // This process holds it open, as a running Codex would: /proc names it.
    const held = await open(db, 'r');
    const real = await realpath(db);
    try {
      const out = await rewindRollout({ transcriptPath: rollout, n: 1, mode: 'in-place', projectRoot: project });
      expect(out.warnings.some((w) => w.startsWith(`Codex has ${real} open`))).toBe(true);
    } finally {
      await held.close();
    }
    expect(await readFile(db)).toEqual(before);
    expect((await parseRollout(rollout)).prompts.length).toBe(2);
  });

  it.runIf(process.platform === 'linux')('a WAL Codex left behind with nobody holding it: its committed frames kept, the thread\'s rows dropped, the WAL gone, the rest kept', async () => {
    const home = await walHome();
    const db = join(home, 'thread_history_1.sqlite');
    // With the WAL the thread has 6 items (11 in the main file alone), 4 turns and its state row.
    expect(await clearThreadProjection(home, WAL_THREAD)).toEqual({ cleared: 11 });
    expect((await readdir(home)).sort()).toEqual(['thread_history_1.sqlite']);
    const after = await readFile(db);
    expect([after[18], after[19]]).toEqual([2, 2]);
    expect(await rowsFor(db, WAL_THREAD)).toBe(0);
    // The row only the WAL held survived.
    expect(await rowsFor(db, 'wal-only-thread')).toBe(1);
    expect(await sql(db, (h) => h.all('pragma integrity_check'))).toEqual([{ integrity_check: 'ok' }]);
  });

  it.runIf(process.platform === 'linux')('a WAL whose last transaction is torn (cut mid-frame, or a frame damaged): the transaction before it kept, the torn one not', async () => {
    // The fixture's WAL: frames 0-1 commit the wal-only row, frames 2-8 delete the thread's items past ordinal 30.
    const FRAME = 24 + 4096;
    for (const tear of [(w: Buffer) => w.subarray(0, 32 + 8 * FRAME + 100), (w: Buffer) => flip(w, 32 + 5 * FRAME + 24 + 10)]) {
      const home = await walHome();
      const db = join(home, 'thread_history_1.sqlite');
      await writeFile(`${db}-wal`, tear(await readFile(`${db}-wal`)));
      // Without the second transaction the thread still has all 11 items: 11 + 4 turns + 1 state row.
      expect(await clearThreadProjection(home, WAL_THREAD)).toEqual({ cleared: 16 });
      expect(await rowsFor(db, 'wal-only-thread')).toBe(1);
      expect(await rowsFor(db, WAL_THREAD)).toBe(0);
      expect(await sql(db, (h) => h.all('pragma integrity_check'))).toEqual([{ integrity_check: 'ok' }]);
    }
  });
});

const WAL_THREAD = '01a21ee1-b217-7281-bf4e-c9f113f51154';

/** A copy with one byte inverted (a frame whose checksum no longer holds). */
function flip(b: Buffer, at: number): Buffer {
  const c = Buffer.from(b);
  c[at] = c[at]! ^ 0xff;
  return c;
}

async function walHome(): Promise<string> {
  const home = await tempDir('rewind-codex171-wal-');
  await cp(join(FIXTURES, 'codex-0.171-wal'), home, { recursive: true });
  return home;
}

async function copyHome(): Promise<{ home: string; rollout: string; project: string }> {
  const home = await tempDir('rewind-codex171-home-');
  await cp(join(FIXTURES, 'codex-0.171'), home, { recursive: true });
  const rollout = join(home, 'sessions', '2026', '11', '27', `rollout-2026-11-27T20-22-50-${ID}.jsonl`);
  const past = new Date(Date.now() - 60_000);
  await utimes(rollout, past, past);
  const project = join(home, 'project');
  await mkdir(project);
  return { home, rollout, project };
}

/** Runs `fn` on the database (read and written as Codex leaves it, WAL mode: this VFS needs exclusive locking for that). */
async function sql<T>(path: string, fn: (h: InstanceType<typeof Database>) => T): Promise<T> {
  const h = new Database(path, { fileMustExist: true });
  try {
    h.exec('pragma locking_mode=exclusive');
    return fn(h);
  } finally {
    h.close();
  }
}

async function rowsFor(path: string, thread: string): Promise<number> {
  return sql(path, (h) => {
    let n = 0;
    for (const t of ['thread_items', 'thread_turns', 'thread_history_projection_state']) n += Number((h.get(`select count(*) as n from ${t} where thread_id = ?`, [thread]) as { n: number }).n);
    return n;
  });
}
