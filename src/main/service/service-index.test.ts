import { appendFile, readFile, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BRANCHED, LINEAR, copyClaudeHome, inCopy, tempDir } from '../../../test/fixtures.js';
import type { RewindEvent } from '../../shared/contract.js';
import { RewindService } from './rewind-service.js';

const WORKER_TS = resolve(import.meta.dirname, 'engine-worker.ts');

async function workerShim(): Promise<string> {
  const shim = join(await tempDir('rewind-worker-'), 'engine-worker.mjs');
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  await writeFile(shim, `import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait import(${JSON.stringify(pathToFileURL(WORKER_TS).href)});\n`);
  return shim;
}

let svc: RewindService | null = null;
afterEach(async () => {
  await svc?.close();
  svc = null;
});

describe('the service over the search and metadata index', () => {
  it('searches on the engine worker with counts, snippets and highlights', async () => {
    const root = await copyClaudeHome();
    svc = new RewindService({ claudeRoot: root, watch: false, workerScript: await workerShim(), roots: { codex: join(root, '..', 'no-codex') }, cacheDir: join(root, '..', 'cache') });
    expect(svc.runner.offThread).toBe(true);
    const r = await svc.handle('searchPrompts', { query: 'Version' });
    expect(r.ok).toBe(true);
    const v = (r as { ok: true; value: { matches: { snippet: string; highlights: [number, number][] }[]; sessions: { transcriptPath: string; count: number }[]; notSearched: unknown[] } }).value;
    expect(v.notSearched).toEqual([]);
    expect(v.sessions.find((s) => s.transcriptPath === inCopy(root, BRANCHED))?.count).toBe(2);
    for (const m of v.matches) expect(m.snippet.slice(...m.highlights[0]!).toLowerCase()).toBe('version');
    const list = await svc.handle('listSessions', {});
    const sessions = (list as { ok: true; value: { sessions: { transcriptPath: string; promptCount: number; livePromptCount: number }[] } }).value.sessions;
    expect(sessions.find((s) => s.transcriptPath === inCopy(root, BRANCHED))).toMatchObject({ promptCount: 6, livePromptCount: 4 });
  });

  it('an append sends one sessionUpdated for that session with its new counts, and no re-list', async () => {
    const root = await copyClaudeHome();
    const past = new Date(Date.now() - 3600_000);
    const file = inCopy(root, LINEAR);
    await utimes(file, past, past);
    svc = new RewindService({ claudeRoot: root, roots: { codex: join(root, '..', 'no-codex') }, cacheDir: join(root, '..', 'cache') });
    await svc.start();
    await svc.handle('listSessions', {});
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    const last = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => typeof l.uuid === 'string' && !l.isSidechain).pop()!;
    await appendFile(file, `${JSON.stringify({ parentUuid: last.uuid, isSidechain: false, userType: 'external', cwd: last.cwd, sessionId: last.sessionId, version: '2.1.330', type: 'user', message: { role: 'user', content: 'one more prompt' }, uuid: 'aaaaaaaa-0000-4000-8000-000000000002', timestamp: new Date().toISOString() })}\n`);
    await vi.waitFor(() => expect(events.some((e) => e.type === 'sessionUpdated')).toBe(true), { timeout: 5000, interval: 20 });
    await new Promise((r) => setTimeout(r, 500));
    const updates = events.filter((e) => e.type === 'sessionUpdated');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.type === 'sessionUpdated' && updates[0]!.session).toMatchObject({ transcriptPath: file, promptCount: 6, livePromptCount: 6, lastPrompt: expect.stringContaining('one more prompt') });
    expect(events.filter((e) => e.type === 'sessionsChanged')).toEqual([]);
  });
});

describe('open sessions', () => {
  it('are dropped least recently used first past the memory budget', async () => {
    const { LiveSessions } = await import('./live-sessions.js');
    const { InlineRunner } = await import('./task-runner.js');
    const { SUBAGENT } = await import('../../../test/fixtures.js');
    const root = await copyClaudeHome();
    const [a, b, c] = [LINEAR, BRANCHED, SUBAGENT].map((f) => inCopy(root, f));
    const { stat } = await import('node:fs/promises');
    const sizes = await Promise.all([a!, b!, c!].map(async (f) => (await stat(f)).size));
    // Room for a and c, not all three.
    const budget = sizes[0]! + sizes[2]!;
    const live = new LiveSessions(() => undefined, new InlineRunner(), budget);
    await live.get(a!);
    await live.get(b!);
    await live.get(a!); // a is now the most recently used
    await live.get(c!);
    expect(live.paths()).toEqual([a!, c!]);
  });
});
