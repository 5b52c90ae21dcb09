import { describe, expect, it } from 'vitest';
import type { CheckpointSummary } from './manifest.js';
import { tieByOffset } from './untied-prompts.js';

const T = '/s/events.jsonl';
const cp = (id: string, at: number, extra: { prompt_uuid?: string | null; trigger?: string; path?: string } = {}): CheckpointSummary =>
  ({
    id,
    depth: 0,
    time: '2026-11-28T08:00:00.000Z',
    label: null,
    trigger: extra.trigger ?? 'prompt',
    scan: 'full',
    transcript: { transcript_path: extra.path ?? T, session_id: 's', agent: 'copilot', prompt_uuid: extra.prompt_uuid ?? null, prompt_id: null, byte_offset_end: at, prefix_sha256: '' },
    files: 0,
    bytes: 0,
    changed: { added: [], modified: [], deleted: [] },
    skipped: 0,
  }) as CheckpointSummary;
const prompts = [
  { uuid: 'p1', byteOffset: 100 },
  { uuid: 'p2', byteOffset: 500 },
  { uuid: 'p3', byteOffset: 900 },
];
const uuidOf = (l: CheckpointSummary[], id: string) => l.find((c) => c.id === id)!.transcript!.prompt_uuid;

describe('tieByOffset: a prompt checkpoint the hook could not tie is tied by where the file ended', () => {
  it('ties the last turn whose prompt was written after the hook ran (Copilot, a chat-only last prompt)', () => {
    const list = [cp('a', 0, { prompt_uuid: 'p1' }), cp('b', 450, { prompt_uuid: 'p2' }), cp('c', 880)];
    const out = tieByOffset(list, T, prompts);
    expect(uuidOf(out, 'c')).toBe('p3');
    expect(uuidOf(out, 'b')).toBe('p2');
    expect(list[2]!.transcript!.prompt_uuid).toBeNull(); // pure: the input is left as it was
  });
  it('the newest checkpoint taken between two prompts wins; one taken before the previous prompt is not moved', () => {
    const out = tieByOffset([cp('a', 50), cp('b', 600), cp('c', 700)], T, prompts);
    expect(uuidOf(out, 'a')).toBe('p1');
    expect(uuidOf(out, 'b')).toBeNull();
    expect(uuidOf(out, 'c')).toBe('p3');
  });
  it('never gives a prompt a second checkpoint, nor ties turn ends, other sessions or checkpoints taken after the last prompt', () => {
    const list = [cp('a', 450, { prompt_uuid: 'p2' }), cp('b', 460), cp('c', 600, { trigger: 'turn-end' }), cp('d', 700, { path: '/other.jsonl' }), cp('e', 950)];
    const out = tieByOffset(list, T, prompts);
    expect(out.map((c) => c.transcript!.prompt_uuid)).toEqual(['p2', null, null, null, null]);
  });
  it('prompts without an offset are left alone', () => {
    expect(uuidOf(tieByOffset([cp('a', 880)], T, [{ uuid: 'p3' }]), 'a')).toBeNull();
  });
});
