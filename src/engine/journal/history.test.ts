import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookedSession } from '../../../test/hooked-session.js';
import { snapshotTree } from '../../../test/tree.js';
import { adapterFor } from '../agents/registry.js';
import { listHistory } from './history.js';
import { readJournal } from './record.js';
import { redo } from './redo.js';
import { resolveRestoreTarget, restore } from '../store/restore.js';
import { revert } from '../store/revert.js';
import { undoById, undoLatest } from './undo.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

type S = Awaited<ReturnType<typeof hookedSession>>;
const past = async (p: string) => utimes(p, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
const bytes = (p: string) => readFile(p).then((b) => b.toString('base64'));
const exists = async (p: string) => !!(await stat(p).catch(() => null));

async function rewind(x: S, mode: 'fork' | 'in-place', n: number, journalGroup?: string) {
  await past(x.transcript);
  const r = await adapterFor('claude').rewind!({ transcriptPath: x.transcript, n, mode, projectRoot: x.project, agentRoot: x.home, journalGroup });
  return r;
}
async function restoreBefore(x: S, k: number, journalGroup?: string) {
  const target = await resolveRestoreTarget({ projectRoot: x.project, ref: x.prompts[k]!.uuid, session: x.session });
  return restore(x.project, target, { force: true, journalGroup });
}
const opts = (x: S) => ({ agentRoots: [x.home] });

describe('redo after every kind of undo, byte for byte', () => {
  it('a fork: the fork file and its file history come back', async () => {
    const x = await hookedSession(dirs);
    const f = await rewind(x, 'fork', 1);
    const made = await bytes(f.forkPath!);
    await undoLatest(x.project, opts(x));
    expect(await exists(f.forkPath!)).toBe(false);
    const r = await redo(x.project, opts(x));
    expect(r.redone.kind).toBe('fork');
    expect(await bytes(f.forkPath!)).toBe(made);
    const rec = (await readJournal(x.project)).find((e) => e.kind === 'fork');
    if (rec?.kind === 'fork' && rec.fileHistoryDir) expect(await exists(rec.fileHistoryDir)).toBe(true);
    // The action is live again: undo takes it back again, and nothing is left to redo after a redo.
    await expect(redo(x.project, opts(x))).rejects.toMatchObject({ code: 'NOTHING_TO_UNDO' });
    await undoLatest(x.project, opts(x));
    expect(await exists(f.forkPath!)).toBe(false);
  });

  it('an in-place rewrite: the rewritten transcript comes back; refused when the session went on', async () => {
    const x = await hookedSession(dirs);
    const original = await bytes(x.transcript);
    await rewind(x, 'in-place', 1);
    const rewritten = await bytes(x.transcript);
    expect(rewritten).not.toBe(original);
    await undoLatest(x.project, opts(x));
    expect(await bytes(x.transcript)).toBe(original);
    await redo(x.project, opts(x));
    expect(await bytes(x.transcript)).toBe(rewritten);
    await undoLatest(x.project, opts(x));
    await writeFile(x.transcript, `${await readFile(x.transcript, 'utf8')}{"type":"mode","mode":"normal"}\n`);
    const grown = await bytes(x.transcript);
    await expect(redo(x.project, opts(x))).rejects.toMatchObject({ code: 'UNDO_MISMATCH', message: expect.stringContaining(x.transcript) });
    expect(await bytes(x.transcript)).toBe(grown);
  });

  it('a restore and a revert: the tree comes back; refused with the path when a file it touches changed', async () => {
    const x = await hookedSession(dirs);
    await restoreBefore(x, 1);
    const restored = await snapshotTree(x.project);
    await undoLatest(x.project, opts(x));
    await redo(x.project, opts(x));
    expect(await snapshotTree(x.project)).toEqual(restored);
    await undoLatest(x.project, opts(x));
    await revert(x.project, { promptId: x.prompts[3]!.uuid, session: x.session, take: 'before' });
    const reverted = await snapshotTree(x.project);
    await undoLatest(x.project, opts(x));
    const undone = await snapshotTree(x.project);
    await redo(x.project, opts(x));
    expect(await snapshotTree(x.project)).toEqual(reverted);
    await undoLatest(x.project, opts(x));
    expect(await snapshotTree(x.project)).toEqual(undone);
    await writeFile(join(x.project, 'notes.md'), 'changed by hand\n');
    const before = await snapshotTree(x.project);
    await expect(redo(x.project, opts(x))).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('notes.md') });
    expect(await snapshotTree(x.project)).toEqual(before);
  });

  it('a fork with its code (one grouped action): both parts come back together', async () => {
    const x = await hookedSession(dirs);
    const f = await rewind(x, 'fork', 2, 'g1');
    await restoreBefore(x, 3, 'g1');
    const tree = await snapshotTree(x.project);
    const fork = await bytes(f.forkPath!);
    const u = await undoLatest(x.project, opts(x));
    expect(u.parts).toHaveLength(2);
    const r = await redo(x.project, opts(x));
    expect(r.parts).toHaveLength(2);
    expect(await snapshotTree(x.project)).toEqual(tree);
    expect(await bytes(f.forkPath!)).toBe(fork);
  });
});

describe('the operations list after ten mixed actions, and undo from the middle', () => {
  it('lists each with what it touched and whether it can be undone, and undoes an older one when nothing it touched changed', async () => {
    const x = await hookedSession(dirs);
    const p = x.prompts;
    await restoreBefore(x, 4); // 1: b.txt goes, notes.md and shared.ts line 36 back
    await undoLatest(x.project, opts(x)); // 2
    await redo(x.project, opts(x)); // 3
    await revert(x.project, { promptId: p[2]!.uuid, session: x.session }); // 4: c.txt goes
    const fork5 = await rewind(x, 'fork', 1); // 5
    await revert(x.project, { promptId: p[3]!.uuid, session: x.session, take: 'current' }); // 6: old.txt back, notes.md line 1 back
    await rewind(x, 'in-place', 1); // 7
    await undoLatest(x.project, opts(x)); // 8
    await past(x.transcript);
    await revert(x.project, { promptId: p[0]!.uuid, session: x.session, take: { 'a.txt': 'current' } }); // 9: shared.ts line 3 back
    const fork10 = await rewind(x, 'fork', 2); // 10
    const h = await listHistory(x.project, { agentRoots: [{ id: 'claude', root: x.home }] });
    expect(h.map((e) => e.kind)).toEqual(['fork', 'revert', 'undo', 'in-place', 'revert', 'fork', 'revert', 'redo', 'undo', 'restore']);
    for (const e of h) {
      expect(e.time).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(e.agent).toBe('claude');
      expect(e.sessionId).toBe('2ea8980a-26fe-4928-aab5-4ebf6074b664');
      expect(e.files.length).toBeGreaterThan(0);
    }
    const [f10, r9, u8, ip7, r6, f5, r4, rd3, u2, rs1] = h;
    expect(f10!.files[0]).toBe(fork10.forkPath);
    expect(f10!.dropped).toMatch(/left out of fork .*: still in session 2ea8980a/);
    expect(ip7!.dropped).toMatch(/kept in the backup/);
    expect(r4!.files).toEqual(['c.txt']);
    expect(r6!.files).toEqual(['notes.md', 'old.txt']);
    expect(r9!.files).toEqual(['shared.ts']);
    expect(rs1!.files).toEqual(['b.txt', 'notes.md', 'shared.ts']);
    expect(f5!.files[0]).toBe(fork5.forkPath);
    expect(rs1!.prompt).toBe(p[4]!.promptId);
    // Which can be undone now, and why not.
    expect(Object.fromEntries(h.map((e, i) => [10 - i, e.undoable]))).toEqual({ 10: true, 9: true, 8: true, 7: false, 6: true, 5: true, 4: true, 3: false, 2: false, 1: false });
    expect(ip7!.why).toBe('already undone');
    expect(u2!.why).toBe('already redone');
    expect(rs1!.why).toContain('shared.ts');
    expect(rd3!.why).toContain('shared.ts');
    expect(u8!.refers).toBe(ip7!.id);
    // Undo a revert from the middle: c.txt comes back and nothing else moves.
    const before = await snapshotTree(x.project);
    await undoById(x.project, r4!.id, opts(x));
    const after = await snapshotTree(x.project);
    expect(Object.keys(after).filter((k) => after[k] !== before[k])).toEqual(['c.txt']);
    expect(await readFile(join(x.project, 'c.txt'), 'utf8')).toBe('bashmade\n');
    // The restore cannot: a file it touched changed since. Nothing is written.
    await expect(undoById(x.project, rs1!.id, opts(x))).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('shared.ts') });
    expect(await snapshotTree(x.project)).toEqual(after);
    // The undo of the rewrite, undone: that is its redo.
    const rewrittenAgain = await undoById(x.project, u8!.id, opts(x));
    expect(rewrittenAgain.undone.kind).toBe('in-place');
    const h2 = await listHistory(x.project, { agentRoots: [{ id: 'claude', root: x.home }] });
    expect(h2.slice(0, 2).map((e) => e.kind)).toEqual(['redo', 'undo']);
    expect(h2.find((e) => e.id === r4!.id)!.undone).toBe(true);
    expect(h2.find((e) => e.id === ip7!.id)!.undoable).toBe(true);
  });
});

describe('redo trusts only what the store set aside', () => {
  it('refuses an undo record whose set-aside file is outside the store, and writes nothing', async () => {
    const x = await hookedSession(dirs);
    const f = await rewind(x, 'fork', 1);
    await undoLatest(x.project, opts(x));
    const journal = join(x.project, '.agent', 'rewind', 'journal.jsonl');
    const outside = join(x.project, 'a.txt');
    const text = await readFile(journal, 'utf8');
    await writeFile(journal, text.replace(/"keptAt":"[^"]*"/, `"keptAt":${JSON.stringify(outside)}`));
    await expect(redo(x.project, opts(x))).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await exists(f.forkPath!)).toBe(false);
    expect(await exists(outside)).toBe(true);
  });
});
