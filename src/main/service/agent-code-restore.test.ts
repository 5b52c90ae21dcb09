import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DROID_SID, droidHome, qwenHome, treeOf } from '../../../test/agent-store.js';
import { RewindService } from './rewind-service.js';
import { captureCli } from '../../../test/cli-capture.js';

const P2 = '65879ecd-2868-4781-b2e0-f132877ff260'; // Droid: WRITE a.txt version two
const QWEN_P2 = 'f12463c2-8185-4fed-a450-ec0901460950';

type Ok<T> = { ok: true; value: T };

const cli = (argv: string[], env: NodeJS.ProcessEnv) => captureCli(argv, { env, stdin: '', installed: true });

describe("the window's Restore code and Fork + restore code, from an agent's own store (through the service)", () => {
  it('Droid: the preview lists the files with A/M/D and diffs, applying restores them, and one undo reverts a fork and its code', async () => {
    const h = await droidHome();
    const svc = new RewindService({ claudeRoot: join(h.root, '..', 'no-claude'), roots: { droid: h.root }, watch: false });
    await svc.start();
    try {
      const preview = (await svc.handle('previewRestore', { project: h.project, ref: P2, session: DROID_SID })) as Ok<{ source: string; agent: string; changes: { path: string; action: string; patch: string | null }[]; note: string }>;
      expect(preview.ok).toBe(true);
      expect(preview.value).toMatchObject({ source: 'agent', agent: 'droid' });
      expect(preview.value.note).toContain("Droid's own snapshots");
      expect(preview.value.changes.map((c) => [c.action, c.path])).toEqual([['modify', 'a.txt'], ['delete', 'b.txt']]);
      expect(preview.value.changes[0]!.patch).toContain('+version one');
      const applied = (await svc.handle('applyRestore', { project: h.project, ref: P2, session: DROID_SID })) as Ok<{ written: number; deleted: number }>;
      expect(applied.value).toMatchObject({ written: 1, deleted: 1 });
      expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
      await svc.handle('undo', { project: h.project });
      expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });

      const both = (await svc.handle('previewRewind', { session: DROID_SID, promptUuid: P2, mode: 'fork', withCode: true })) as Ok<{ code: { source: string; changes: unknown[] } | null; codeNote: string | null }>;
      expect(both.value.code).toMatchObject({ source: 'agent', changes: [{ path: 'a.txt' }, { path: 'b.txt' }] });
      const done = (await svc.handle('applyRewind', { session: DROID_SID, promptUuid: P2, mode: 'fork', withCode: true, force: true })) as Ok<{ forkSessionId: string; code: { written: number; deleted: number } }>;
      expect(done.value.code).toMatchObject({ written: 1, deleted: 1 });
      expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
      const undone = (await svc.handle('undo', { project: h.project })) as Ok<{ parts: number }>;
      expect(undone.value.parts).toBe(2);
      expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
    } finally {
      await svc.close();
    }
  });
});

describe('the CLI: restore <prompt uuid> and back --both for an agent with its own store', () => {
  it('Qwen: restore names the source, deletes the file created after the prompt; back --both forks and restores, undo reverts both', async () => {
    const h = await qwenHome({ beforeNativeRewind: true });
    const env = { HOME: join(h.root, '..') };
    const r = await cli(['restore', QWEN_P2, '--json', '--project', h.project, '--transcript', h.transcript], env);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain("Source: Qwen's own file history");
    expect(JSON.parse(r.out)).toMatchObject({ source: 'qwen', changes: [{ path: 'a.txt', action: 'modify' }, { path: 'b.txt', action: 'delete' }] });
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
    expect((await cli(['undo', '--project', h.project], env)).code).toBe(0);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });

    expect((await cli(['restore', QWEN_P2, '--source', 'droid', '--project', h.project, '--transcript', h.transcript], env)).err).toMatch(/this session is qwen's/);
    const back = await cli(['back', '2', '--both', '--force', '--project', h.project, '--transcript', h.transcript], env);
    expect(back.code, back.err).toBe(0);
    expect(back.out).toMatch(/Fork created: /);
    expect(back.err).toContain("Code: Qwen's own file history");
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n' });
    const u = await cli(['undo', '--project', h.project], env);
    expect(u.code, u.err).toBe(0);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
  });
});
