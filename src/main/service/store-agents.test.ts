import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';
import { RewindService } from './rewind-service.js';

const LINEAR = 'ses_de19e15c0ffejFs1eUcW7jGVjR';

describe('OpenCode sessions (a SQLite store) in the app', () => {
  it('are read, previewed, and followed live when the agent writes the store', async () => {
    const h = await tempDir('rewind-store-agents-');
    await cp(join(FIXTURES, 'opencode-1.18.33', 'home'), join(h, 'home'), { recursive: true });
    const data = join(h, 'home', '.local', 'share');
    const db = join(data, 'opencode', 'opencode.db');
    const svc = new RewindService({ claudeRoot: join(h, 'no-claude'), env: { ...process.env, HOME: join(h, 'nohome'), XDG_DATA_HOME: data }, roots: { codex: join(h, 'no-codex') } });
    await svc.start();
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    try {
      // (The sidebar's list and search come from the line index, which does not read a store yet.)
      const path = `${db}#${LINEAR}`;
      const t = ((await svc.handle('getTimeline', { session: path })) as { ok: true; value: Timeline }).value;
      expect(t.session).toMatchObject({ agent: 'opencode', readOnly: null });
      expect(t.prompts.map((p) => p.text)).toHaveLength(4);
      const preview = await svc.handle('previewRewind', { session: path, promptUuid: t.prompts[3]!.uuid, mode: 'fork', withCode: false });
      expect(preview).toMatchObject({ ok: true, value: { chat: { prompts: [{ text: 'what files are in this project' }] } } });

      // The agent goes on: a new prompt lands in the store (here written as OpenCode writes it).
      const { default: sqlite } = await import('node-sqlite3-wasm');
      const w = new sqlite.Database(db);
      w.exec('pragma locking_mode=exclusive');
      const now = Date.now();
      w.run('insert into message (id, session_id, time_created, time_updated, data) values (?, ?, ?, ?, ?)', ['msg_zzzzzzzzzzzz01', LINEAR, now, now, JSON.stringify({ role: 'user', time: { created: now } })]);
      w.run('insert into part (id, message_id, session_id, time_created, time_updated, data) values (?, ?, ?, ?, ?, ?)', ['prt_zzzzzzzzzzzz01', 'msg_zzzzzzzzzzzz01', LINEAR, now, now, JSON.stringify({ type: 'text', text: 'one more thing' })]);
      w.close();
      await vi.waitFor(
        () => {
          const e = events.find((ev) => ev.type === 'timelineChanged' && ev.session === path);
          expect(e?.type === 'timelineChanged' && e.timeline?.prompts.at(-1)?.text).toBe('one more thing');
        },
        { timeout: 8000, interval: 50 },
      );
    } finally {
      await svc.close();
    }
  });
});
