import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adapterFor } from '../agents/registry.js';
import { SearchIndex } from './search-index.js';
import { tempDir } from '../../../test/temp.js';

// Real stores written by OpenCode 1.18.33 and Kilo 7.7.7 (test/fixtures/*/README.md says how, in order).
const FIX = join(import.meta.dirname, '../../../test/fixtures');

/** Writes to the copied store as the agent would (WAL, no shared memory in the wasm VFS: exclusive). */
async function editStore(db: string, sql: string, params: (string | number)[]): Promise<void> {
  const { Database } = (await import('node-sqlite3-wasm')).default;
  const h = new Database(db, { fileMustExist: true });
  try {
    h.exec('pragma locking_mode=exclusive');
    h.run(sql, params);
  } finally {
    h.close();
  }
}

describe.each([
  { agent: 'opencode', fixture: 'opencode-1.18.33', db: 'opencode.db' },
  { agent: 'kilo', fixture: 'kilo-7.7.7', db: 'kilo.db' },
] as const)('$agent sessions in the search and metadata index', (c) => {
  it('lists each session with the open timeline’s counts, finds its prompts, reads the store again only when it changed', async () => {
    const a = adapterFor(c.agent);
    const home = await tempDir(`${c.agent}-index-`);
    await cp(join(FIX, c.fixture), home, { recursive: true });
    const root = a.root({ HOME: join(home, 'home') });
    const ix = await SearchIndex.open(join(home, 'index'));
    const first = await ix.refresh([{ adapter: a, root }]);
    expect(first.skipped).toEqual([]);
    expect(first.scanned).toBe(3);
    const list = ix.summaries();
    expect(list).toHaveLength(3);
    for (const s of list) {
      const t = await a.timeline(s.transcriptPath);
      expect([s.agent, s.title, s.promptCount, s.livePromptCount, s.firstPrompt]).toEqual([c.agent, t.session.title, t.prompts.length, t.stats.activePrompts, t.prompts[0]!.text]);
    }
    const hit = ix.search('version one');
    expect(hit.notSearched).toEqual([]);
    expect(hit.sessions.length).toBeGreaterThan(0);
    const session = list.find((s) => s.transcriptPath === hit.sessions[0]!.transcriptPath)!;
    const t = await a.timeline(session.transcriptPath);
    expect(t.prompts.map((p) => p.uuid)).toContain(hit.sessions[0]!.prompts[0]!.promptUuid);

    // Nothing changed: nothing read. A session renamed and touched: only the store read again.
    const again = await ix.refresh([{ adapter: a, root }]);
    expect([again.scanned, again.reindexed, again.deleted]).toEqual([0, 0, 0]);
    const db = join(root, c.db);
    const renamed = list[list.length - 1]!;
    await editStore(db, 'update session set title = ?, time_updated = time_updated + 5000 where id = ?', ['renamed by the test', renamed.id]);
    const moved = await ix.refresh([{ adapter: a, root }]);
    expect(moved.reindexed).toBeGreaterThanOrEqual(1);
    expect(ix.summaries().find((s) => s.id === renamed.id)?.title).toBe('renamed by the test');

    // A session deleted from the store leaves the index (the watcher's path: the store named).
    await editStore(db, 'delete from session where id = ?', [renamed.id]);
    expect(await ix.refreshFile(a, root, db)).toBeNull();
    expect(ix.summaries().map((s) => s.id)).not.toContain(renamed.id);
    expect(ix.summaries()).toHaveLength(2);
  });
});
