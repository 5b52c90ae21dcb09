import { execFileSync } from 'node:child_process';
import { appendFile, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRANCHED, LINEAR, copyClaudeHome, inCopy } from '../../test/fixtures.js';
import { captureCli } from '../../test/cli-capture.js';

const cli = (argv: string[], env: NodeJS.ProcessEnv, tty = false) => captureCli(argv, { env, tty });

const past = new Date(Date.now() - 3600_000);

async function home() {
  const root = await copyClaudeHome();
  const linear = inCopy(root, LINEAR);
  const branched = inCopy(root, BRANCHED);
  for (const f of [linear, branched]) await utimes(f, past, past);
  const cache = join(root, '..', 'cache');
  return { root, linear, branched, index: join(cache, 'index'), env: { CLAUDE_CONFIG_DIR: root, HOME: '/nonexistent-home', REWIND_CACHE_DIR: cache, CODEX_HOME: join(root, '..', 'no-codex') } };
}

const list = async (env: NodeJS.ProcessEnv) => {
  const r = await cli(['sessions', '--json'], env);
  expect(r.code, r.err).toBe(0);
  return { doc: JSON.parse(r.out) as { root: string; sessions: { id: string; transcriptPath: string; promptCount: number; live: boolean }[] }, err: r.err };
};

/** Damages every segment of the index in place: only a run that opens the index notices. */
async function spoilSegments(index: string): Promise<void> {
  for (const n of (await readdir(index)).filter((x) => x.endsWith('.idx'))) await writeFile(join(index, n), 'not an index');
}

describe('sessions: the warm list from the snapshot beside the index', () => {
  it('is the list the index gives, read without opening the index', async () => {
    const h = await home();
    const cold = await list(h.env);
    expect(cold.doc.sessions.length).toBeGreaterThan(2);
    expect((await readdir(h.index)).includes('list.snap')).toBe(true);
    await spoilSegments(h.index);
    const warm = await list(h.env);
    // No notice about the spoilt segments: they were not read.
    expect(warm.err).toBe('');
    expect(warm.doc).toEqual(cold.doc);
    // On a terminal: the same document, indented.
    const tty = await cli(['sessions', '--json'], h.env, true);
    expect(tty.out).toContain('\n  "sessions": [');
    expect(JSON.parse(tty.out)).toEqual(cold.doc);
    // The text list is the same from either.
    const text = (await cli(['sessions'], h.env)).out;
    await rm(join(h.index, 'list.snap'));
    await rm(h.index, { recursive: true });
    expect((await cli(['sessions'], h.env)).out).toBe(text);
  });

  it('is not used once a session grew, was added or removed: the index is read again', async () => {
    const h = await home();
    const before = await list(h.env);
    const count = (d: typeof before.doc, path: string) => d.sessions.find((s) => s.transcriptPath === path)?.promptCount;
    // One more prompt, appended as the agent would.
    const lines = (await readFile(h.linear, 'utf8')).trim().split('\n');
    const last = JSON.parse(lines.filter((l) => l.includes('"uuid"')).pop()!) as { uuid: string; sessionId: string };
    await appendFile(h.linear, `${JSON.stringify({ type: 'user', uuid: 'aaaaaaaa-0000-4000-8000-000000000001', parentUuid: last.uuid, isSidechain: false, userType: 'external', sessionId: last.sessionId, timestamp: new Date().toISOString(), message: { role: 'user', content: 'one more prompt' } })}\n`);
    const grown = await list(h.env);
    expect(count(grown.doc, h.linear)).toBe(count(before.doc, h.linear)! + 1);
    expect(grown.doc.sessions.find((s) => s.transcriptPath === h.linear)!.live).toBe(true);
    // And the next run reads the new snapshot (the segments are not read).
    await spoilSegments(h.index);
    const again = await list(h.env);
    expect(again.err).toBe('');
    expect(count(again.doc, h.linear)).toBe(count(grown.doc, h.linear));
    // A removed session is gone from the list at once.
    await rm(h.branched);
    const removed = await list(h.env);
    expect(removed.doc.sessions.map((s) => s.transcriptPath)).not.toContain(h.branched);
    expect(removed.doc.sessions).toHaveLength(before.doc.sessions.length - 1);
  });

  it('a damaged snapshot, or something else in its place, is passed over without a word', async () => {
    const h = await home();
    const cold = await list(h.env);
    const snap = join(h.index, 'list.snap');
    const bytes = await readFile(snap);
    bytes[bytes.length - 3]! ^= 1;
    await writeFile(snap, bytes);
    expect(await list(h.env)).toEqual(cold);
    // A FIFO never blocks the list.
    await rm(snap);
    execFileSync('mkfifo', [snap]);
    expect((await list(h.env)).doc).toEqual(cold.doc);
  });

  it('--project picks from the snapshot as from the index', async () => {
    const h = await home();
    const all = await list(h.env);
    const project = '/home/dev/projects/linear';
    const picked = await cli(['sessions', '--json', '--project', project], h.env);
    expect(JSON.parse(picked.out).sessions.map((s: { id: string }) => s.id)).toEqual(all.doc.sessions.filter((s) => (s as unknown as { cwd: string }).cwd === project).map((s) => s.id));
  });
});
