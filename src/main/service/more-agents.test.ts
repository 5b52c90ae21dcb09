import { appendFile, cp, mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';
import { RewindService } from './rewind-service.js';

const past = new Date(Date.now() - 3600_000);

/** One home holding a real Droid, Qwen Code and Gemini CLI session, each where its CLI keeps it. */
async function home() {
  const h = await tempDir('rewind-agents-');
  const droid = join(h, 'd', '.factory', 'sessions', '-home-dev-projects-linear', '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e.jsonl');
  const qwen = join(h, 'q', 'projects', '-home-dev-projects-linear', 'chats', 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl');
  const gemini = join(h, 'g', '.gemini', 'tmp', 'linear', 'chats', 'session-2026-11-23T11-33-f2a3037a.jsonl');
  for (const [src, dst] of [
    [join(FIXTURES, 'droid-real', '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e.jsonl'), droid],
    [join(FIXTURES, 'droid-real', '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e.settings.json'), droid.replace(/\.jsonl$/, '.settings.json')],
    [join(FIXTURES, 'qwen-real', 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl'), qwen],
    [join(FIXTURES, 'gemini-real', 'session-2026-11-23T11-33-f2a3037a.jsonl'), gemini],
    [join(FIXTURES, 'gemini-real', 'projects.json'), join(h, 'g', '.gemini', 'projects.json')],
  ] as const) {
    await mkdir(join(dst, '..'), { recursive: true });
    await cp(src, dst);
  }
  for (const p of [droid, qwen, gemini]) await utimes(p, past, past);
  const env = { HOME: join(h, 'nohome'), FACTORY_HOME_OVERRIDE: join(h, 'd'), QWEN_HOME: join(h, 'q'), GEMINI_CLI_HOME: join(h, 'g') };
  return { h, droid, qwen, gemini, env };
}

describe('Factory Droid, Qwen Code and Gemini CLI sessions in the app', () => {
  it('are listed with their agent, read, searched and forked through their adapters, and followed live', async () => {
    const x = await home();
    const svc = new RewindService({ claudeRoot: join(x.h, 'no-claude'), env: { ...process.env, ...x.env }, roots: { codex: join(x.h, 'no-codex') } });
    await svc.start();
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    try {
      const list = await svc.handle('listSessions', {});
      const value = (list as { ok: true; value: { sessions: { agent: string; promptCount: number | null }[]; agents: { id: string; badge: string }[] } }).value;
      expect(value.sessions.map((s) => [s.agent, s.promptCount]).sort()).toEqual([
        ['droid', 5],
        ['gemini', 5],
        ['qwen', 5],
      ]);
      expect(value.agents.map((a) => a.badge)).toEqual(expect.arrayContaining(['Droid', 'Qwen', 'Gemini']));

      for (const [path, agent, resume] of [
        [x.droid, 'droid', 'droid exec -s'],
        [x.qwen, 'qwen', 'qwen --resume'],
        [x.gemini, 'gemini', 'gemini --resume'],
      ] as const) {
        const t = ((await svc.handle('getTimeline', { session: path })) as { ok: true; value: Timeline }).value;
        expect(t.session).toMatchObject({ agent, readOnly: null });
        const last = t.prompts[t.prompts.length - 1]!;
        const turn = await svc.handle('getTurn', { session: path, promptUuid: t.prompts[0]!.uuid });
        expect((turn as { ok: true; value: { items: { kind: string }[] } }).value.items.map((i) => i.kind)).toContain('tool-call');
        const preview = await svc.handle('previewRewind', { session: path, promptUuid: last.uuid, mode: 'fork', withCode: false });
        expect(preview).toMatchObject({ ok: true, value: { chat: { prompts: [{ text: last.text }] } } });
        const fork = await svc.handle('applyRewind', { session: path, promptUuid: last.uuid, mode: 'fork', withCode: false });
        expect(fork.ok, JSON.stringify(fork)).toBe(true);
        const made = (fork as { ok: true; value: { forkSessionId: string; resumeCommand: string } }).value;
        expect(made.resumeCommand).toBe(`${resume} ${made.forkSessionId}`);
        const forked = ((await svc.handle('getTimeline', { session: made.forkSessionId })) as { ok: true; value: Timeline }).value;
        expect(forked.prompts.map((p) => p.text)).toEqual(t.prompts.slice(0, -1).map((p) => p.text));
      }

      const found = await svc.handle('searchPrompts', { query: 'bashmade' });
      const matches = (found as { ok: true; value: { matches: { transcriptPath: string }[] } }).value.matches.map((m) => m.transcriptPath);
      expect(matches).toEqual(expect.arrayContaining([x.droid, x.qwen, x.gemini]));

      // The user goes on in Droid: the open timeline follows.
      await appendFile(x.droid, `${JSON.stringify({ type: 'message', id: 'm-new', parentId: null, timestamp: new Date().toISOString(), message: { role: 'user', content: [{ type: 'text', text: 'one more thing' }] } })}\n`);
      await vi.waitFor(
        () => {
          const e = events.find((ev) => ev.type === 'timelineChanged' && ev.session === x.droid);
          expect(e?.type === 'timelineChanged' && e.timeline?.prompts.at(-1)?.text).toBe('one more thing');
        },
        { timeout: 5000, interval: 20 },
      );
    } finally {
      await svc.close();
    }
  });
});
