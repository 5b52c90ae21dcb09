import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../shared/session-schema.js';
import { matchRanges, sidebarItems, wholeWords } from './sidebar-items.js';

const session = (id: string, cwd: string, createdAt: string, lastActivity: string, title = id): SessionSummary => ({
  id, agent: 'claude', title, cwd, projectDir: `/p${cwd}`, transcriptPath: `/p${cwd}/${id}.jsonl`, promptCount: 1, firstPrompt: null, lastPrompt: null, createdAt, lastActivity, sizeBytes: 1, version: null, live: false, forkOf: null,
});
const keys = (xs: ReturnType<typeof sidebarItems>) => xs.map((x) => (x.kind === 'host' ? `@${x.host ?? 'here'}` : x.kind === 'group' ? `[${x.project}]` : x.kind === 'session' ? x.session.id : `~${x.match.promptUuid}`));

describe('sidebarItems', () => {
  it('keeps projects and sessions in place while a session is written', () => {
    const a1 = session('a1', '/a', '2026-01-01T00:00:00Z', '2026-01-05T00:00:00Z');
    const a2 = session('a2', '/a', '2026-01-03T00:00:00Z', '2026-01-03T00:00:00Z');
    const b1 = session('b1', '/b', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z');
    const before = keys(sidebarItems([a1, a2, b1], '', []));
    expect(before).toEqual(['[/a]', 'a2', 'a1', '[/b]', 'b1']);
    // b1 is written to (newest activity) and comes first from the service: nothing moves.
    const written = { ...b1, lastActivity: '2026-02-01T00:00:00Z', live: true };
    expect(keys(sidebarItems([written, a1, a2], '', []))).toEqual(before);
    // A new session in /b moves its group up, once.
    const b2 = session('b2', '/b', '2026-02-02T00:00:00Z', '2026-02-02T00:00:00Z');
    expect(keys(sidebarItems([b2, written, a1, a2], '', []))).toEqual(['[/b]', 'b2', 'b1', '[/a]', 'a2', 'a1']);
  });

  it('the agent filter keeps one agent\'s sessions and their prompt matches only', () => {
    const a1 = session('a1', '/a', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'Parser work');
    const g1 = { ...session('g1', '/a', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'Parser too'), agent: 'gemini' as const };
    const m = { transcriptPath: a1.transcriptPath, promptUuid: 'u1', snippet: 'fix the parser' };
    expect(keys(sidebarItems([a1, g1], '', [], undefined, 'gemini'))).toEqual(['[/a]', 'g1']);
    expect(keys(sidebarItems([a1, g1], 'parser', [m], undefined, 'gemini'))).toEqual(['[/a]', 'g1']);
    expect(keys(sidebarItems([a1, g1], 'parser', [m], undefined, 'claude'))).toEqual(['[/a]', 'a1', '~u1']);
    expect(keys(sidebarItems([a1, g1], '', [], undefined, null))).toEqual(['[/a]', 'g1', 'a1']);
  });

  it('filters by title or prompt match and lists the matches under their session', () => {
    const a1 = session('a1', '/a', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'Parser work');
    const b1 = session('b1', '/b', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'Release');
    const m = { transcriptPath: b1.transcriptPath, promptUuid: 'u1', snippet: 'fix the parser' };
    expect(keys(sidebarItems([a1, b1], 'parser', [m]))).toEqual(['[/b]', 'b1', '~u1', '[/a]', 'a1']);
    expect(keys(sidebarItems([a1, b1], 'nothing', []))).toEqual([]);
  });
});

describe('snippets', () => {
  it('drops words the cut split, keeps the ellipses', () => {
    expect(wholeWords('…rser fix the cache before rele…')).toBe('…fix the cache before…');
    expect(wholeWords('fix the cache')).toBe('fix the cache');
  });
  it('finds every match, case-insensitive', () => {
    expect(matchRanges('Cache the cache', 'CACHE')).toEqual([[0, 5], [10, 15]]);
    expect(matchRanges('abc', ' ')).toEqual([]);
  });

  it('groups by machine once a remote host is added: this one first, then each host, a lost one kept with its line', () => {
    const here = session('h1', '/a', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z');
    const there = { ...session('r1', 'rewind-remote:box:/w', '2026-01-03T00:00:00Z', '2026-01-03T00:00:00Z'), host: 'box' };
    const box = { name: 'box', target: 'dev@box', state: 'connected' as const, message: null, version: '0.1.0' };
    const lost = { name: 'vm', target: 'vm', state: 'lost' as const, message: 'Connection refused', version: null };
    expect(keys(sidebarItems([here, there], '', [], undefined, null, [box, lost]))).toEqual(['@here', '[/a]', 'h1', '@box', '[rewind-remote:box:/w]', 'r1', '@vm']);
    const items = sidebarItems([here, there], '', [], undefined, null, [box, lost]);
    expect(items.find((x) => x.kind === 'host' && x.host === 'vm')).toMatchObject({ status: lost, sessions: 0 });
    // Without hosts the list is as it always was.
    expect(keys(sidebarItems([here], '', []))).toEqual(['[/a]', 'h1']);
  });
});
