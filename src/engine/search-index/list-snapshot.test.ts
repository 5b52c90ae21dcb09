import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../shared/session-schema.js';
import { decodeListSnapshot, encodeListSnapshot, LIVE_WINDOW_MS, snapshotIsFresh, snapshotJson, snapshotListBytes } from './list-snapshot.js';

const summary = (id: string, path: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({
  id,
  agent: 'claude',
  title: `tïtle ${id} "quoted" ✓`,
  cwd: `/p/${id}`,
  projectDir: '/root/projects/x',
  transcriptPath: path,
  promptCount: 3,
  livePromptCount: 2,
  firstPrompt: 'first',
  lastPrompt: 'last',
  createdAt: '2026-01-01T00:00:00.000Z',
  lastActivity: '2026-01-02T00:00:00.000Z',
  sizeBytes: 10,
  version: '2.1.330',
  live: false,
  forkOf: null,
  forkAt: null,
  ...extra,
});

const files = [
  { path: '/r/a.jsonl', size: 10, mtimeMs: 1000.25 },
  { path: '/r/b.jsonl', size: 20, mtimeMs: 2000 },
  // Held by the index with no list entry (no prompt yet): still part of the freshness test.
  { path: '/r/c.jsonl', size: 0, mtimeMs: 3000 },
];
const sessions = [summary('b', '/r/b.jsonl', { forkOf: 'a', forkAt: 2 }), summary('a', '/r/a.jsonl')];
const encode = () => encodeListSnapshot({ indexVersion: 2, segments: ['seg-2.idx', 'seg-1.idx'], files, sessions });
const listed = () => [files.map((f) => ({ ...f, sessionId: f.path }))];

describe('the session list snapshot', () => {
  it('gives back each entry as it was, the late fields filled in by the reader', () => {
    const snap = decodeListSnapshot(encode(), 2000 + LIVE_WINDOW_MS - 1)!;
    expect(snap.sessions.map((s) => JSON.parse(snapshotJson(s)))).toEqual([{ ...sessions[0], live: true }, { ...sessions[1], live: false }]);
    const doc = JSON.parse(snapshotListBytes('/r', snap.sessions).toString('utf8'));
    expect(doc).toEqual({ root: '/r', sessions: [{ ...sessions[0], live: true }, { ...sessions[1], live: false }] });
    // The journals' word wins over what the file said.
    expect(JSON.parse(snapshotJson({ ...snap.sessions[1]!, forkOf: 'z', forkAt: 5 }))).toMatchObject({ id: 'a', forkOf: 'z', forkAt: 5 });
  });

  it('is fresh only for the same segments and every listed file at the size and time it was read', () => {
    const snap = decodeListSnapshot(encode(), 0)!;
    expect(snapshotIsFresh(snap, 2, ['seg-1.idx', 'seg-2.idx'], listed())).toBe(true);
    expect(snapshotIsFresh(snap, 3, ['seg-1.idx', 'seg-2.idx'], listed())).toBe(false);
    expect(snapshotIsFresh(snap, 2, ['seg-1.idx', 'seg-2.idx', 'seg-3.idx'], listed())).toBe(false);
    expect(snapshotIsFresh(snap, 2, ['seg-1.idx'], listed())).toBe(false);
    const grown = listed();
    grown[0]![1]!.size = 21;
    expect(snapshotIsFresh(snap, 2, ['seg-1.idx', 'seg-2.idx'], grown)).toBe(false);
    const touched = listed();
    touched[0]![0]!.mtimeMs = 1000.5;
    expect(snapshotIsFresh(snap, 2, ['seg-1.idx', 'seg-2.idx'], touched)).toBe(false);
    const gone = listed();
    gone[0]!.pop();
    expect(snapshotIsFresh(snap, 2, ['seg-1.idx', 'seg-2.idx'], gone)).toBe(false);
    const more = listed();
    more.push([{ path: '/other/d.jsonl', sessionId: 'd', size: 1, mtimeMs: 1 }]);
    expect(snapshotIsFresh(snap, 2, ['seg-1.idx', 'seg-2.idx'], more)).toBe(false);
  });

  it('a damaged, cut or foreign snapshot reads as none', () => {
    const buf = encode();
    expect(decodeListSnapshot(buf.subarray(0, buf.length - 1), 0)).toBeNull();
    expect(decodeListSnapshot(Buffer.concat([buf, Buffer.from('x')]), 0)).toBeNull();
    for (const at of [buf.indexOf('tïtle'), buf.indexOf('seg-1'), buf.length - 2]) {
      const bad = Buffer.from(buf);
      bad[at]! ^= 1;
      expect(decodeListSnapshot(bad, 0), `byte ${at}`).toBeNull();
    }
    expect(decodeListSnapshot(Buffer.from('REWIND-INDEX 2\n'), 0)).toBeNull();
    expect(decodeListSnapshot(Buffer.alloc(0), 0)).toBeNull();
  });
});
