import { readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { qwenHome, restoreFromAgent, treeOf } from '../../../../test/agent-store.js';
import { undoLatest } from '../../journal/undo.js';
import { rewindQwen } from './rewind.js';

const P1 = 'd6c9c72d-6a88-404e-8fb7-94ff0a2cc70e'; // WRITE a.txt version one (a.txt was "v0")
const P2 = 'f12463c2-8185-4fed-a450-ec0901460950'; // WRITE a.txt version two
const P3 = 'e21fd10e-edbd-489f-bfea-8b75d93c4208'; // WRITE b.txt bee (creates b.txt)
const P4 = '6eb57c76-82a7-47d7-b033-db45933a95c7'; // after Qwen's own /rewind to #2: WRITE d.txt

describe("Qwen's file history as the code store", () => {
  it("before #2: a.txt modified back and b.txt, created after, deleted (Qwen's own rewind kept it); undo puts both back", async () => {
    const h = await qwenHome({ beforeNativeRewind: true });
    const dry = await restoreFromAgent(h.project, h.transcript, P2, { dryRun: true });
    expect(dry.preview.target).toMatchObject({ source: 'agent', agent: 'qwen' });
    expect(dry.preview.plan.changes.map((c) => [c.action, c.path])).toEqual([['modify', 'a.txt'], ['delete', 'b.txt']]);
    await restoreFromAgent(h.project, h.transcript, P2);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
    await undoLatest(h.project);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
  });

  it('after the native rewind: the live path only; d.txt (created after #4) goes, b.txt of the dead branch is left alone; a dead prompt is refused', async () => {
    const h = await qwenHome({ beforeNativeRewind: false });
    await restoreFromAgent(h.project, h.transcript, P4);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n', 'b.txt': 'bee\n' });
    await undoLatest(h.project);
    await restoreFromAgent(h.project, h.transcript, P1, { force: true });
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'v0\n', 'b.txt': 'bee\n' });
    const err = await restoreFromAgent(h.project, h.transcript, P3).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'NO_CHECKPOINT', message: expect.stringContaining('dead branch') });
  });

  it("a fork Rewind makes gets the session's backups under its own id: its prompts restore from Qwen's store; undo of the fork removes them", async () => {
    const h = await qwenHome({ beforeNativeRewind: true });
    const fork = await rewindQwen({ transcriptPath: h.transcript, promptUuid: P3, mode: 'fork', projectRoot: h.project });
    const own = join(h.root, 'file-history', fork.forkSessionId!);
    expect((await readdir(own)).sort()).toEqual((await readdir(h.backups)).sort());
    const r = await restoreFromAgent(h.project, fork.forkPath!, P2);
    expect(r.preview.target).toMatchObject({ source: 'agent', agent: 'qwen', transcriptPath: fork.forkPath });
    // b.txt was created by #3, which the fork left out: its store does not track it.
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n', 'b.txt': 'bee\n' });
    await undoLatest(h.project, { agentRoots: [h.root] });
    await undoLatest(h.project, { agentRoots: [h.root] });
    await expect(readdir(own)).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(h.backups)).length).toBeGreaterThan(0);
  });

  it('a file deleted since comes back', async () => {
    const h = await qwenHome({ beforeNativeRewind: true });
    await unlink(join(h.project, 'a.txt'));
    await restoreFromAgent(h.project, h.transcript, P2);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
  });

  it('a crafted path outside the project is named and left alone; a crafted backup name is refused; a missing backup is one line, nothing written', async () => {
    const h = await qwenHome({ beforeNativeRewind: true });
    const original = await readFile(h.transcript, 'utf8');
    await writeFile(h.transcript, original.replace('"trackedFileBackups":{"a.txt":{"backupFileName":"3d3437bafdd83556@v2"', '"trackedFileBackups":{"../escape.txt":{"backupFileName":"3d3437bafdd83556@v2","version":1},"a.txt":{"backupFileName":"3d3437bafdd83556@v2"'));
    const r = await restoreFromAgent(h.project, h.transcript, P2);
    expect(r.preview.outside).toEqual(['../escape.txt']);
    await expect(readFile(join(h.project, '..', 'escape.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await undoLatest(h.project);

    await writeFile(h.transcript, original.replace('"backupFileName":"3d3437bafdd83556@v2"', '"backupFileName":"../../../x"'));
    await expect(restoreFromAgent(h.project, h.transcript, P2)).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT' });

    await writeFile(h.transcript, original);
    await unlink(join(h.backups, '3d3437bafdd83556@v2'));
    const err = await restoreFromAgent(h.project, h.transcript, P2).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'NOT_FOUND' });
    expect((err as Error).message).toMatch(/^Qwen's backup 3d3437bafdd83556@v2 of a\.txt is missing from .*: nothing was changed$/);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
  });
});
