import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { run } from '../../cli/main.js';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { listCheckpoints } from '../../engine/store/manifest.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';
import { RewindService } from './rewind-service.js';
import { ADAPTERS } from '../../engine/agents/registry.js';

const ID = '01a20831-aaaa-7000-8000-000000000001';
const line = (o: Record<string, unknown>) => `${JSON.stringify({ timestamp: new Date().toISOString(), ...o })}\n`;
const prompt = (text: string) =>
  line({ type: 'event_msg', payload: { type: 'task_started', turn_id: text } }) +
  line({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }], internal_chat_message_metadata_passthrough: { content_item_kinds: ['user.text'] } } });

describe('Rewind checkpoints for agents without hooks (Codex)', () => {
  it('the watcher checkpoints the project at each new prompt: marked in the timeline, and a rewind there restores the code', async () => {
    const home = await tempDir('rewind-cp-codex-');
    const project = await tempDir('rewind-cp-project-');
    await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
    await writeFile(join(project, 'a.txt'), 'one\n');
    const rollout = join(home, 'sessions', '2026', '11', '23', `rollout-2026-11-23T11-00-00-${ID}.jsonl`);
    await mkdir(dirname(rollout), { recursive: true });
    await writeFile(rollout, line({ type: 'session_meta', payload: { id: ID, cwd: project, cli_version: '0.169.0' } }) + prompt('first'));
    const svc = new RewindService({ claudeRoot: join(home, 'no-claude'), roots: { codex: home } });
    await svc.start();
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    try {
      const t = (await svc.handle('getTimeline', { session: ID })) as { ok: true; value: Timeline };
      expect(t.value.prompts.map((p) => p.text)).toEqual(['first']);
      // Codex sends a new prompt; the file is as the user left it at that moment.
      const reads = vi.spyOn(ADAPTERS.codex, 'timeline');
      await appendFile(rollout, prompt('second'));
      await vi.waitFor(async () => expect((await listCheckpoints(project)).filter((c) => c.trigger === 'prompt')).toHaveLength(1), { timeout: 5000, interval: 50 });
      const [cp] = await listCheckpoints(project);
      // One read of the session's timeline and one event for the change, with the new prompt's marker in it.
      await vi.waitFor(() => expect(events.filter((e) => e.type === 'timelineChanged')).toHaveLength(1), { timeout: 5000, interval: 20 });
      await new Promise((r) => setTimeout(r, 300));
      expect(reads.mock.calls.filter(([p]) => p === rollout)).toHaveLength(1);
      reads.mockRestore();
      const changes = events.filter((e) => e.type === 'timelineChanged');
      expect(changes).toHaveLength(1);
      expect(changes[0]!.type === 'timelineChanged' && changes[0]!.timeline?.prompts[1]?.checkpoint?.id).toBe(cp!.id);
      const second = (await svc.handle('getTimeline', { session: ID })) as { ok: true; value: Timeline };
      const p2 = second.value.prompts[1]!;
      expect(cp!.transcript).toMatchObject({ transcript_path: rollout, agent: 'codex', prompt_uuid: p2.uuid });
      expect(p2.checkpoint?.id).toBe(cp!.id);
      await vi.waitFor(() => expect(events.some((e) => e.type === 'timelineChanged' && e.timeline?.prompts[1]?.checkpoint?.id === cp!.id)).toBe(true), { timeout: 5000, interval: 50 });
      // Then the turn changed a file: forking before that prompt with the code puts it back.
      await writeFile(join(project, 'a.txt'), 'two\n');
      const preview = (await svc.handle('previewRewind', { session: ID, promptUuid: p2.uuid, mode: 'fork', withCode: true })) as { ok: true; value: { code: { checkpointId: string; changes: { path: string }[] } | null } };
      expect(preview.value.code).toMatchObject({ checkpointId: cp!.id, changes: [{ path: 'a.txt' }] });
      // The CLI restores by that prompt's own id (Codex's ids are not uuids) from the same checkpoint.
      let err = '';
      const io = { out: () => undefined, err: (t: string) => (err += t), env: { HOME: '/nonexistent-home', CODEX_HOME: home, REWIND_CACHE_DIR: join(home, 'cache') }, cwd: project };
      expect(p2.uuid).not.toMatch(/^[0-9a-f]{8}-/);
      expect(await run(['restore', p2.uuid, '--transcript', rollout, '--project', project, '--force'], io)).toBe(0);
      expect(err).toContain(`Rewind checkpoint ${cp!.id}`);
      expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('one\n');
    } finally {
      await svc.close();
    }
  });
});
