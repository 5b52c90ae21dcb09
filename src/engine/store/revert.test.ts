import { readFile, rm, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hookedSession } from '../../../test/hooked-session.js';
import { snapshotTree } from '../../../test/tree.js';
import { readJournal } from '../journal/record.js';
import { undoLatest } from '../journal/undo.js';
import { objectStore } from './checkpoint.js';
import { listCheckpoints, readManifest } from './manifest.js';
import { revert, turnCheckpoints, type Take } from './revert.js';
import type { CheckpointSummary } from './manifest.js';
import { revertFile } from './revert-merge.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
const session = () => hookedSession(dirs);

/** The tree of a checkpoint, as file contents (directories left out). */
async function checkpointFiles(project: string, id: string): Promise<Map<string, string>> {
  const m = await readManifest(project, id);
  const objects = objectStore(project);
  const out = new Map<string, string>();
  for (const e of m.entries) if (e[1] === 'f') out.set(e[0], (await objects.read(e[2])).toString('utf8'));
  return out;
}

/**
 * What reverting prompt k must leave, worked out here from the checkpoints alone, line by line
 * (every file of this project keeps its line count): a line the prompt changed goes back unless a
 * later change touched it too, which makes the file a conflict.
 */
async function expectedRevert(project: string, k: number, now: Record<string, string>) {
  const ps = (await listCheckpoints(project)).filter((c) => c.trigger === 'prompt');
  const before = await checkpointFiles(project, ps[k]!.id);
  const after = k + 1 < ps.length ? await checkpointFiles(project, ps[k + 1]!.id) : new Map(Object.entries(now).filter(([, v]) => v !== 'dir').map(([p, v]) => [p, Buffer.from(v.slice(2), 'base64').toString('utf8')]));
  const current = new Map(Object.entries(now).filter(([, v]) => v !== 'dir').map(([p, v]) => [p, Buffer.from(v.slice(2), 'base64').toString('utf8')]));
  const files = new Map(current);
  const conflicts: string[] = [];
  for (const p of new Set([...before.keys(), ...after.keys()])) {
    const [b, a, c] = [before.get(p), after.get(p), current.get(p)];
    if (b === a) continue;
    if (b === undefined) {
      // Created by the prompt: it goes, unless changed since.
      if (c === a) files.delete(p);
      else if (c !== undefined) conflicts.push(p);
      continue;
    }
    if (a === undefined) {
      if (c === undefined) files.set(p, b);
      else if (c !== b) conflicts.push(p);
      continue;
    }
    const [bl, al, cl] = [b.split('\n'), a.split('\n'), (c ?? '').split('\n')];
    const mine = bl.map((l, i) => l !== al[i]);
    if (mine.some((m, i) => m && al[i] !== cl[i])) {
      conflicts.push(p);
      continue;
    }
    files.set(p, cl.map((l, i) => (mine[i] ? bl[i] : l)).join('\n'));
  }
  return { files, conflicts: conflicts.sort(), before };
}

const contents = (snap: Record<string, string>) => new Map(Object.entries(snap).filter(([, v]) => v !== 'dir').map(([p, v]) => [p, Buffer.from(v.slice(2), 'base64').toString('utf8')]));

describe('revert one prompt (Claude session with hooks, real fixture)', () => {
  it('reverts each prompt in turn: its own changes go back, later edits stay, overlapping ones are conflicts until chosen', async () => {
    const x = await session();
    const original = await snapshotTree(x.project);
    const seen: Record<number, string[]> = {};
    for (let k = 0; k < 5; k++) {
      const exp = await expectedRevert(x.project, k, original);
      const uuid = x.prompts[k]!.uuid;
      const dry = await revert(x.project, { promptId: uuid, session: x.session, dryRun: true });
      expect(dry.preview.unresolved.sort()).toEqual(exp.conflicts);
      seen[k] = exp.conflicts;
      let take: Record<string, Take> | undefined;
      if (exp.conflicts.length) {
        // Refused, and nothing changed, until a choice is made for each conflicted file; --force is no choice.
        await expect(revert(x.project, { promptId: uuid, session: x.session, force: true })).rejects.toMatchObject({ code: 'CONFLICT' });
        expect(await snapshotTree(x.project)).toEqual(original);
        for (const c of dry.preview.conflicts) expect(c.current).not.toBeNull();
        take = Object.fromEntries(exp.conflicts.map((p) => [p, 'before' as Take]));
      }
      const r = await revert(x.project, { promptId: uuid, session: x.session, take });
      expect(r.applied).not.toBeNull();
      const want = new Map(exp.files);
      for (const p of exp.conflicts) {
        if (exp.before.has(p)) want.set(p, exp.before.get(p)!);
        else want.delete(p);
      }
      expect(contents(await snapshotTree(x.project))).toEqual(want);
      // One journal entry, undoable: the tree comes back byte for byte.
      const j = await readJournal(x.project);
      expect(j.filter((e) => e.kind === 'revert')).toHaveLength(k + 1);
      await undoLatest(x.project);
      expect(await snapshotTree(x.project)).toEqual(original);
    }
    // The overlaps built into the session are the ones found.
    expect(seen).toEqual({ 0: ['a.txt'], 1: [], 2: [], 3: ['notes.md'], 4: [] });
  });

  it('keeps a later change in the same file, restores a deleted file, deletes a created one, and writes markers when asked', async () => {
    const x = await session();
    const p = x.prompts;
    // #1 changed shared.ts line 3, #2 line 21: reverting #1 keeps #2's line.
    await revert(x.project, { promptId: p[0]!.uuid, session: x.session, take: { 'a.txt': 'current' } });
    const shared = await readFile(join(x.project, 'shared.ts'), 'utf8');
    expect(shared).toContain('shared line 3\n');
    expect(shared).toContain('shared line 21 by #2');
    expect(await readFile(join(x.project, 'a.txt'), 'utf8')).toBe('version two\n');
    // #4 deleted old.txt: it comes back; #3 created c.txt: it goes.
    await revert(x.project, { promptId: p[3]!.uuid, session: x.session, take: 'markers' });
    expect(await readFile(join(x.project, 'old.txt'), 'utf8')).toBe('to be deleted\n');
    expect(await readFile(join(x.project, 'notes.md'), 'utf8')).toMatch(/^<<<<<<< current\nalpha delta\n\|\|\|\|\|\|\| after the prompt\nalpha gamma\n=======\nalpha beta\n>>>>>>> before the prompt\n/);
    await revert(x.project, { promptId: p[2]!.uuid, session: x.session });
    await expect(readFile(join(x.project, 'c.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('is all or nothing: a disk that fills half-way leaves the tree as it was and journals nothing', async () => {
    const x = await session();
    const before = await snapshotTree(x.project);
    let n = 0;
    const full = async () => {
      if (++n === 2) throw Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' });
    };
    await expect(revert(x.project, { promptId: x.prompts[0]!.uuid, session: x.session, take: 'before', writeHook: full })).rejects.toMatchObject({ code: 'IO', message: expect.stringMatching(/no space left.*nothing was changed/) });
    expect(n).toBe(2);
    expect(await snapshotTree(x.project)).toEqual(before);
    expect((await readJournal(x.project)).filter((r) => r.kind === 'revert')).toHaveLength(0);
  });

  it('refuses a session written moments ago unless forced, and a prompt with no checkpoint', async () => {
    const x = await session();
    await utimes(x.transcript, new Date(), new Date());
    await expect(revert(x.project, { promptId: x.prompts[2]!.uuid, session: x.session })).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE' });
    expect((await revert(x.project, { promptId: x.prompts[2]!.uuid, session: x.session, force: true })).applied).not.toBeNull();
    await expect(revert(x.project, { promptId: 'no-such-prompt', session: x.session, dryRun: true })).rejects.toMatchObject({ code: 'NO_CHECKPOINT' });
  });
});

describe('revertFile (three-way, node-diff3)', () => {
  const b = (s: string | null) => (s === null ? null : Buffer.from(s));
  it('takes the prompt back, keeps a separate later change, and calls an overlap a conflict', () => {
    expect(revertFile(b('a\nX\nc\nd\ne\n'), b('a\nX\nc\nd\nE\n'), b('a\nb\nc\nd\ne\n'))).toEqual({ outcome: 'clean', result: b('a\nb\nc\nd\nE\n') });
    expect(revertFile(b('a\nX\nc\n'), b('a\nY\nc\n'), b('a\nb\nc\n'))).toMatchObject({ outcome: 'conflict' });
    expect(revertFile(b('new\n'), b('new\n'), null)).toEqual({ outcome: 'clean', result: null });
    expect(revertFile(null, null, b('gone\n'))).toEqual({ outcome: 'clean', result: b('gone\n') });
    expect(revertFile(b('x\0'), b('y\0'), b('z\0'))).toMatchObject({ outcome: 'conflict', markers: null });
  });
});

describe('turnCheckpoints', () => {
  const cp = (id: string, path: string, uuid: string | null, pid: string | null, trigger: CheckpointSummary['trigger'] = 'prompt'): CheckpointSummary => ({
    id,
    time: id,
    label: null,
    trigger,
    scan: 'full',
    transcript: { transcript_path: path, session_id: null, agent: 'claude', prompt_uuid: uuid, prompt_id: pid, byte_offset_end: 0, prefix_sha256: '' },
    files: 0,
    bytes: 0,
    changed: { added: [], modified: [], deleted: [] },
    skipped: 0,
  });
  it("ends a turn at the next prompt of any session (a fork goes on in a new file), matching a uuid through the session's prompt id", () => {
    const list = [cp('1', '/a.jsonl', null, 'pid-1'), cp('2', '/a.jsonl', null, 'x', 'pre-restore'), cp('3', '/fork.jsonl', 'u-9', null), cp('4', '/a.jsonl', null, 'pid-2')];
    const session = { transcriptPath: '/a.jsonl', agent: 'claude', prompts: [{ uuid: 'u-1', promptId: 'pid-1', active: true }] };
    expect(turnCheckpoints(list, 'u-1', session)).toMatchObject({ before: { id: '1' }, after: { id: '3' } });
    expect(turnCheckpoints(list, 'pid-2', null)).toMatchObject({ before: { id: '4' }, after: null });
    expect(turnCheckpoints(list, 'u-1', null)).toBeNull();
  });
});
