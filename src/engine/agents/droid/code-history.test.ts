import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { droidHome, restoreFromAgent, treeOf } from '../../../../test/agent-store.js';
import { undoLatest } from '../../journal/undo.js';
import { sha256 } from '../code-history-parts.js';
import { droid } from './adapter.js';

const P1 = 'c7200ba0-b3ed-4b25-b46b-6c02b76108ed'; // WRITE a.txt version one (a.txt was "v0")
const P2 = '65879ecd-2868-4781-b2e0-f132877ff260'; // WRITE a.txt version two
const P3 = 'd3942991-0efa-4f28-8f9b-c0cabf2c649b'; // WRITE b.txt bee (creates b.txt)

describe("Droid's snapshots as the code store", () => {
  it('before #2: a.txt modified back, b.txt (created after) deleted; before #1: the v0 Droid captured; undo puts everything back', async () => {
    const h = await droidHome();
    const dry = await restoreFromAgent(h.project, h.transcript, P2, { dryRun: true });
    expect(dry.preview.target).toMatchObject({ source: 'agent', agent: 'droid' });
    expect(dry.preview.plan.changes.map((c) => [c.action, c.path])).toEqual([['modify', 'a.txt'], ['delete', 'b.txt']]);
    expect(dry.preview.diffs.find((d) => d.path === 'a.txt')!.patch).toContain('-version two\n+version one');
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
    const r = await restoreFromAgent(h.project, h.transcript, P2);
    expect(r.applied).toMatchObject({ written: 1, deleted: 1 });
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
    await undoLatest(h.project);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
    // The undo records the tree it put back (redo needs it), so that tree is not "changed outside
    // the agent": a second restore goes ahead without --force.
    await restoreFromAgent(h.project, h.transcript, P1);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'v0\n' });
  });

  it('a file deleted since comes back: by hand after the session, or by the agent (a deletion with its content)', async () => {
    const h = await droidHome();
    await unlink(join(h.project, 'a.txt'));
    await restoreFromAgent(h.project, h.transcript, P2);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
    // The third turn also deleted notes.md, whose content Droid kept.
    const m = JSON.parse(await readFile(h.manifest, 'utf8'));
    const notes = Buffer.from('notes\n');
    await mkdir(join(h.root, 'snapshots', 'content', sha256(notes).slice(0, 2)), { recursive: true });
    await writeFile(join(h.root, 'snapshots', 'content', sha256(notes).slice(0, 2), sha256(notes).slice(2)), notes);
    m.boundaries[2].deletions.push({ filePath: join(h.project, 'notes.md'), contentHash: sha256(notes), size: 6, mode: 33188 });
    await writeFile(h.manifest, JSON.stringify(m));
    await restoreFromAgent(h.project, h.transcript, P3);
    // Before #3 a.txt was as #2 left it (no edit since speaks for it); b.txt was not there yet.
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n', 'notes.md': 'notes\n' });
  });

  it('a path outside the project in a crafted manifest is left alone and named; a missing blob is one line and nothing is written', async () => {
    const h = await droidHome();
    const m = JSON.parse(await readFile(h.manifest, 'utf8'));
    m.boundaries[1].files.push({ filePath: join(h.project, '..', 'escape.txt'), contentHash: m.boundaries[1].files[0].contentHash, size: 12 });
    m.boundaries[1].files.push({ filePath: '../../etc/passwd', contentHash: m.boundaries[1].files[0].contentHash, size: 12 });
    await writeFile(h.manifest, JSON.stringify(m));
    const r = await restoreFromAgent(h.project, h.transcript, P2);
    expect(r.preview.outside).toHaveLength(2);
    expect(r.preview.plan.changes.map((c) => c.path)).toEqual(['a.txt', 'b.txt']);
    await expect(readFile(join(h.project, '..', 'escape.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await undoLatest(h.project);

    await unlink(join(h.root, 'snapshots', 'content', 'db', 'cdb1f658e3f2220d1c09474ff99a91b2b19a0bf81e6cde1a3814d5bc35c6d9'));
    const err = await restoreFromAgent(h.project, h.transcript, P2).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'NOT_FOUND' });
    expect((err as Error).message).toMatch(/^Droid's snapshot of a\.txt \(dbcdb1f658e3\) is missing from .*: nothing was changed$/);
    expect((err as Error).message).not.toContain('\n');
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
  });

  it('a crafted hash that is a path is refused before anything is read; no manifest: the store has nothing (null)', async () => {
    const h = await droidHome();
    const m = JSON.parse(await readFile(h.manifest, 'utf8'));
    m.boundaries[1].files[0].contentHash = '../../../../etc/passwd';
    await writeFile(h.manifest, JSON.stringify(m));
    await expect(restoreFromAgent(h.project, h.transcript, P2)).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT' });
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
    await unlink(h.manifest);
    expect(await droid.codeHistory!.before({ transcriptPath: h.transcript, promptUuid: P2, projectRoot: h.project })).toBeNull();
  });

  it("a fork (Droid's own rewind, or Rewind's) has no manifest of its own: the parent's speaks for the prompts it kept", async () => {
    const h = await droidHome();
    const { copyFile } = await import('node:fs/promises');
    const { dirname } = await import('node:path');
    const { FIXTURES } = await import('../../../../test/fixtures.js');
    // Droid's own rewind to before #2 wrote this session, naming its parent.
    const fork = join(dirname(h.transcript), '6b131df1-ad0b-49ca-94a4-a08f51abac51.jsonl');
    await copyFile(join(FIXTURES, 'droid-real', 'native-rewind', '6b131df1-ad0b-49ca-94a4-a08f51abac51.jsonl'), fork);
    await writeFile(fork, (await readFile(fork, 'utf8')).split('/home/dev/projects/proj').join(h.project));
    await restoreFromAgent(h.project, fork, P1);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'v0\n' });
    // Rewind's own fork keeps the ids and names no parent: the manifest naming the prompt is found.
    await undoLatest(h.project);
    const { rewindDroid } = await import('./rewind.js');
    const r = await rewindDroid({ transcriptPath: h.transcript, promptUuid: P3, mode: 'fork', projectRoot: h.project });
    await restoreFromAgent(h.project, r.forkPath!, P2, { force: true });
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
  });
});

