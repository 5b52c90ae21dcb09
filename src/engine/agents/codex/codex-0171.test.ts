import { cp, mkdir, open, readFile, readdir, realpath, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { codex } from './adapter.js';
import { parseRollout } from './rollout.js';
import { rewindRollout } from './rewind.js';
import { clearThreadProjection } from './thread-history.js';
import initSqlJs from 'sql.js';

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
    const SQL = await initSqlJs();
    // Another thread's row, to be kept (the database written back as Codex leaves it: WAL mode).
    const bytes = await readFile(db);
    bytes[18] = bytes[19] = 1;
    const h = new SQL.Database(bytes);
    h.run("insert into thread_history_projection_state values ('other-thread', 10, 2)");
    const withOther = Buffer.from(h.export());
    h.close();
    withOther[18] = withOther[19] = 2;
    await writeFile(db, withOther);
    expect(rowsFor(SQL, await readFile(db), ID)).toBeGreaterThan(0);

    const out = await rewindRollout({ transcriptPath: rollout, n: 1, mode: 'in-place', projectRoot: project });
    expect(out.warnings.filter((w) => w.includes('thread_history_1.sqlite'))).toEqual([]);
    const after = await readFile(db);
    expect(rowsFor(SQL, after, ID)).toBe(0);
    expect(rowsFor(SQL, after, 'other-thread')).toBe(1);
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

  it.runIf(process.platform === 'linux')('a WAL Codex left behind with nobody holding it: folded in, the thread\'s rows dropped, the WAL gone, the rest kept', async () => {
    const home = await tempDir('rewind-codex171-wal-');
    await cp(join(FIXTURES, 'codex-0.171-wal'), home, { recursive: true });
    const db = join(home, 'thread_history_1.sqlite');
    expect(await clearThreadProjection(home, '01a21ee1-b217-7281-bf4e-c9f113f51154')).toEqual({ cleared: 11 });
    expect((await readdir(home)).sort()).toEqual(['thread_history_1.sqlite']);
    const SQL = await initSqlJs();
    const after = await readFile(db);
    expect([after[18], after[19]]).toEqual([2, 2]);
    expect(rowsFor(SQL, after, '01a21ee1-b217-7281-bf4e-c9f113f51154')).toBe(0);
    // The row only the WAL held survived the fold.
    expect(rowsFor(SQL, after, 'wal-only-thread')).toBe(1);
  });
});

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

function rowsFor(SQL: Awaited<ReturnType<typeof initSqlJs>>, bytes: Buffer, thread: string): number {
  const copy = Buffer.from(bytes);
  copy[18] = copy[19] = 1;
  const h = new SQL.Database(copy);
  try {
    let n = 0;
    for (const t of ['thread_items', 'thread_turns', 'thread_history_projection_state']) n += Number(h.exec(`select count(*) from ${t} where thread_id = '${thread}'`)[0]!.values[0]![0]);
    return n;
  } finally {
    h.close();
  }
}
