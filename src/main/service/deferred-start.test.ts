import { appendFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BRANCHED, LINEAR, copyClaudeHome, inCopy } from '../../../test/fixtures.js';
import type { RewindEvent } from '../../shared/contract.js';
import { RewindService } from './rewind-service.js';

type List = { ok: true; value: { sessions: { transcriptPath: string; promptCount: number | null }[] } };

let svc: RewindService | null = null;
afterEach(async () => {
  await svc?.close();
  svc = null;
});

async function promptLine(file: string, text: string): Promise<string> {
  const last = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => typeof l.uuid === 'string' && !l.isSidechain).pop()!;
  return `${JSON.stringify({ parentUuid: last.uuid, isSidechain: false, userType: 'external', cwd: last.cwd, sessionId: last.sessionId, type: 'user', message: { role: 'user', content: text }, uuid: `dddd0000-0000-4000-8000-${String(Date.now()).slice(-12)}`, timestamp: new Date().toISOString() })}\n`;
}

describe('a window start (deferWatch)', () => {
  it('answers the first list from the persisted index alone, then watches and catches up', async () => {
    const root = await copyClaudeHome();
    const opts = { claudeRoot: root, roots: { codex: join(root, '..', 'no-codex') }, cacheDir: join(root, '..', 'cache') };
    // An earlier run left an index.
    svc = new RewindService({ ...opts, watch: false });
    const before = (await svc.handle('listSessions', {})) as List;
    await svc.close();
    const linear = inCopy(root, LINEAR);
    const countOf = (l: List, f: string) => l.value.sessions.find((s) => s.transcriptPath === f)?.promptCount;
    expect(countOf(before, linear)).toBe(5);

    // While Rewind was closed: a prompt appended to one session, another session deleted.
    await appendFile(linear, await promptLine(linear, 'while closed'));
    await rm(inCopy(root, BRANCHED));
    svc = new RewindService({ ...opts, deferWatch: true });
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    await svc.start();
    // No watcher before the first list: this append is not seen now.
    await appendFile(linear, await promptLine(linear, 'before the first list'));
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toEqual([]);
    const first = (await svc.handle('listSessions', {})) as List;
    // Straight from the index: the files were not looked at.
    expect(first.value.sessions.map((s) => s.transcriptPath).sort()).toEqual(before.value.sessions.map((s) => s.transcriptPath).sort());
    expect(countOf(first, linear)).toBe(5);
    // Then the watcher starts and the index catches up: one re-list, now current.
    await svc.watching;
    await vi.waitFor(() => expect(events.some((e) => e.type === 'sessionsChanged')).toBe(true), { timeout: 5000, interval: 20 });
    const second = (await svc.handle('listSessions', {})) as List;
    expect(countOf(second, linear)).toBe(7);
    expect(countOf(second, inCopy(root, BRANCHED))).toBeUndefined();
    // And appends are followed from now on.
    await appendFile(linear, await promptLine(linear, 'after'));
    await vi.waitFor(() => expect(events.some((e) => e.type === 'sessionUpdated' && e.session.transcriptPath === linear && e.session.promptCount === 8)).toBe(true), { timeout: 5000, interval: 20 });
  });

  it('answers the first list by indexing when there is no index yet', async () => {
    const root = await copyClaudeHome();
    svc = new RewindService({ claudeRoot: root, roots: { codex: join(root, '..', 'no-codex') }, cacheDir: join(root, '..', 'fresh-cache'), deferWatch: true });
    await svc.start();
    const list = (await svc.handle('listSessions', {})) as List;
    expect(list.value.sessions.length).toBe(3);
    expect(list.value.sessions.every((s) => s.promptCount !== null)).toBe(true);
    await svc.watching;
  });

  it('starts watching on its own when no list comes', async () => {
    const root = await copyClaudeHome();
    const linear = inCopy(root, LINEAR);
    svc = new RewindService({ claudeRoot: root, roots: { codex: join(root, '..', 'no-codex') }, cacheDir: join(root, '..', 'cache'), deferWatch: true });
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    await svc.start();
    await svc.watching;
    await appendFile(linear, await promptLine(linear, 'watched'));
    await vi.waitFor(() => expect(events.some((e) => e.type === 'sessionUpdated' && e.session.transcriptPath === linear)).toBe(true), { timeout: 5000, interval: 20 });
  });
});
