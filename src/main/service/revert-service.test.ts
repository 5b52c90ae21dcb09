import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import { takeCheckpoint } from '../../engine/store/checkpoint.js';
import { readRestoreSession } from '../../engine/store/restore-session.js';
import type { ResponseOf } from '../../shared/contract.js';
import { RewindService } from './rewind-service.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const FIXTURE = join(FIXTURES, 'codex-0.169', 'sessions', '2026', '11', '23', 'rollout-2026-11-23T11-36-01-01a20831-0a9b-7362-9657-fdd051b67f43.jsonl');
const lines = (marks: Record<number, string>) => `${Array.from({ length: 12 }, (_, i) => marks[i] ?? `a line ${i + 1}`).join('\n')}\n`;

describe('revert, history, undo by id and redo through the service (a Codex session: any agent with checkpoints)', () => {
  it('reverts the middle prompt of a real Codex rollout, lists it, undoes it by id and redoes it', async () => {
    const home = await tempDir('rewind-revert-codex-');
    const project = await tempDir('rewind-revert-project-');
    dirs.push(home, project);
    // The real rollout, its recorded cwd pointed at this test's project.
    const rollout = join(home, 'sessions', '2026', '11', '23', basename(FIXTURE));
    await mkdir(join(home, 'sessions', '2026', '11', '23'), { recursive: true });
    await writeFile(rollout, (await readFile(FIXTURE, 'utf8')).split('/home/dev/projects/demo').join(project));
    const past = new Date(Date.now() - 3600_000);
    await utimes(rollout, past, past);
    const session = await readRestoreSession(rollout);
    expect(session.agent).toBe('codex');
    const ids = session.prompts.map((p) => p.uuid);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    // A checkpoint before each prompt, as the app's watcher takes them for Codex, then the turn's edits.
    await writeFile(join(project, 'a.txt'), lines({}));
    const edits: Record<string, string>[] = [{ 'first.txt': 'one\n' }, { 'a.txt': lines({ 1: 'line 2 by the middle prompt' }), 'mid.txt': 'made in the middle\n' }, { 'a.txt': lines({ 1: 'line 2 by the middle prompt', 8: 'line 9 by the next prompt' }) }];
    for (let i = 0; i < 3; i++) {
      await takeCheckpoint({ projectRoot: project, trigger: 'prompt', transcript: { transcript_path: rollout, session_id: null, agent: 'codex', prompt_uuid: ids[i]!, prompt_id: null, byte_offset_end: 0, prefix_sha256: '' } });
      await new Promise((r) => setTimeout(r, 5));
      for (const [f, v] of Object.entries(edits[i]!)) await writeFile(join(project, f), v);
    }
    const svc = new RewindService({ claudeRoot: join(home, 'no-claude'), roots: { codex: home }, watch: false, env: { HOME: home, CODEX_HOME: home } });
    await svc.start();
    try {
      const ask = async <T>(op: string, req: unknown): Promise<T> => {
        const r = await svc.handle(op, req);
        if (!r.ok) throw new Error(`${op}: ${r.error.code} ${r.error.message}`);
        return r.value as T;
      };
      const plan = await ask<ResponseOf<'revertPreview'>>('revertPreview', { session: rollout, promptUuid: ids[1] });
      expect(plan.changes.map((c) => [c.path, c.action])).toEqual([['a.txt', 'modify'], ['mid.txt', 'delete']]);
      expect(plan.conflicts).toEqual([]);
      expect(plan.changes[0]!.patch).toContain('-line 2 by the middle prompt');
      const done = await ask<ResponseOf<'revert'>>('revert', { session: rollout, promptUuid: ids[1] });
      expect(done.summary).toMatch(/^Reverted prompt .*: 2 files \(1 deleted\)$/);
      expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe(lines({ 8: 'line 9 by the next prompt' }));
      await expect(readFile(join(project, 'mid.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

      const h = await ask<ResponseOf<'history'>>('history', { project });
      expect(h.entries).toHaveLength(1);
      expect(h.entries[0]).toMatchObject({ kind: 'revert', agent: 'codex', prompt: ids[1], files: ['a.txt', 'mid.txt'], undoable: true });
      await ask('undo', { project, id: h.entries[0]!.id });
      expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe(lines({ 1: 'line 2 by the middle prompt', 8: 'line 9 by the next prompt' }));
      expect(await readFile(join(project, 'mid.txt'), 'utf8')).toBe('made in the middle\n');
      const r = await ask<ResponseOf<'redo'>>('redo', { project });
      expect(r.kind).toBe('revert');
      expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe(lines({ 8: 'line 9 by the next prompt' }));
      const after = await ask<ResponseOf<'history'>>('history', { project });
      expect(after.entries.map((e) => e.kind)).toEqual(['redo', 'undo', 'revert']);
    } finally {
      await svc.close();
    }
  });
});
