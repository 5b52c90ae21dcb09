import { appendFile, cp, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';
import { RewindService } from './rewind-service.js';

const SID = '2c141a1f-92c1-4df3-af25-28014492b79e';
const past = new Date(Date.now() - 3600_000);

describe('GitHub Copilot CLI sessions in the app', () => {
  it('are listed with their agent, read, searched and forked through the adapter, and followed live', async () => {
    const h = await tempDir('rewind-copilot-app-');
    const root = join(h, 'copilot');
    await cp(join(FIXTURES, 'copilot-1.0.102', 'home', '.copilot'), root, { recursive: true });
    const path = join(root, 'session-state', SID, 'events.jsonl');
    await utimes(path, past, past);
    const svc = new RewindService({ claudeRoot: join(h, 'no-claude'), env: { ...process.env, HOME: join(h, 'nohome'), COPILOT_HOME: root }, roots: { codex: join(h, 'no-codex') } });
    await svc.start();
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    try {
      const list = (await svc.handle('listSessions', {})) as { ok: true; value: { sessions: { id: string; agent: string; promptCount: number | null }[]; agents: { id: string; badge: string }[] } };
      expect(list.value.sessions.filter((s) => s.id === SID).map((s) => [s.agent, s.promptCount])).toEqual([['copilot', 4]]);
      expect(list.value.agents.find((a) => a.id === 'copilot')?.badge).toBe('Copilot');

      const t = ((await svc.handle('getTimeline', { session: path })) as { ok: true; value: Timeline }).value;
      expect(t.session).toMatchObject({ agent: 'copilot', readOnly: null });
      const turn = (await svc.handle('getTurn', { session: path, promptUuid: t.prompts[0]!.uuid })) as { ok: true; value: { items: { kind: string }[] } };
      expect(turn.value.items.map((i) => i.kind)).toContain('tool-call');
      const last = t.prompts[t.prompts.length - 1]!;
      const preview = await svc.handle('previewRewind', { session: path, promptUuid: last.uuid, mode: 'fork', withCode: false });
      expect(preview).toMatchObject({ ok: true, value: { chat: { prompts: [{ text: last.text }] } } });
      const fork = await svc.handle('applyRewind', { session: path, promptUuid: last.uuid, mode: 'fork', withCode: false });
      expect(fork.ok, JSON.stringify(fork)).toBe(true);
      const made = (fork as { ok: true; value: { forkSessionId: string; resumeCommand: string } }).value;
      expect(made.resumeCommand).toBe(`copilot --resume ${made.forkSessionId}`);
      const forked = ((await svc.handle('getTimeline', { session: made.forkSessionId })) as { ok: true; value: Timeline }).value;
      expect(forked.prompts.map((p) => p.text)).toEqual(t.prompts.slice(0, -1).map((p) => p.text));

      const found = (await svc.handle('searchPrompts', { query: 'bashmade' })) as { ok: true; value: { matches: { transcriptPath: string }[] } };
      expect(found.value.matches.map((m) => m.transcriptPath)).toContain(path);

      // The user goes on in Copilot: the open timeline follows.
      const ev = { type: 'user.message', data: { content: 'one more thing' }, id: 'b0b7d8a4-0000-4000-8000-000000000001', timestamp: new Date().toISOString(), parentId: null };
      await appendFile(path, `${JSON.stringify(ev)}\n`);
      await vi.waitFor(
        () => {
          const e = events.find((x) => x.type === 'timelineChanged' && x.session === path);
          expect(e?.type === 'timelineChanged' && e.timeline?.prompts.at(-1)?.text).toBe('one more thing');
        },
        { timeout: 5000, interval: 20 },
      );
    } finally {
      await svc.close();
    }
  });
});
