import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../../test/fixtures.js';
import { LineScanner } from '../../search-index/line-scanner.js';
import { CLAUDE_PROMPTS } from './prompt-lines.js';

const sc = new LineScanner();
sc.start(CLAUDE_PROMPTS, {});
/** The id and parent the index's scanner reads from one line's bytes. */
const lineLink = (bytes: Buffer) => {
  sc.input.set(bytes, 0);
  sc.line(0, bytes.length);
  return sc.lastLink();
};
const link = (v: unknown) => lineLink(Buffer.from(JSON.stringify(v)));

describe("Claude's message links from raw bytes", () => {
  it('reads ids of any length, parents, compaction boundaries; skips sidechains and keys past the head', () => {
    expect(link({ parentUuid: 'u1', isSidechain: false, type: 'assistant', uuid: 'a1', requestId: 'req_a1', message: { id: 'm' } })).toEqual({ id: 'a1', parent: 'u1' });
    const id = '2ea8980a-26fe-4928-aab5-4ebf6074b664';
    expect(link({ isSidechain: false, parentUuid: null, type: 'user', message: { content: 'hi "uuid":"x"' }, uuid: id })).toEqual({ id, parent: null });
    expect(link({ parentUuid: null, logicalParentUuid: 'a9', isSidechain: false, type: 'system', subtype: 'compact_boundary', uuid: 'c1' })).toEqual({ id: 'c1', parent: 'a9' });
    expect(link({ parentUuid: 'u1', isSidechain: true, uuid: 's1' })).toBeNull();
    expect(link({ pad: 'x'.repeat(600), parentUuid: 'u1', uuid: 'late' })).toBeNull();
    expect(link({ type: 'file-history-snapshot', messageId: 'm1', snapshot: { messageId: 'm1' } })).toBeNull();
  });

  it('reads a parent that continues the chain (the same string as the id before) and one that only starts like it', () => {
    const a = 'a0c1e2f3-0000-4000-8000-000000000001';
    expect(link({ parentUuid: null, isSidechain: false, uuid: a })).toEqual({ id: a, parent: null });
    const b = link({ parentUuid: a, isSidechain: false, uuid: 'b1' });
    expect(b).toEqual({ id: 'b1', parent: a });
    // Longer, shorter, and one byte off from the last id: each read as written.
    expect(link({ parentUuid: 'b12', isSidechain: false, uuid: 'c1' })).toEqual({ id: 'c1', parent: 'b12' });
    expect(link({ parentUuid: 'c', isSidechain: false, uuid: 'd1' })).toEqual({ id: 'd1', parent: 'c' });
    expect(link({ parentUuid: 'd2', isSidechain: false, uuid: 'e1' })).toEqual({ id: 'e1', parent: 'd2' });
    expect(link({ parentUuid: 'e1', isSidechain: false, uuid: 'f1' })).toEqual({ id: 'f1', parent: 'e1' });
    const long = 'x'.repeat(100);
    expect(link({ parentUuid: 'f1', isSidechain: false, uuid: long })).toEqual({ id: long, parent: 'f1' });
    expect(link({ parentUuid: long, isSidechain: false, uuid: 'g1' })).toEqual({ id: 'g1', parent: long });
  });

  it('gives every message of the rewound-and-compacted fixture the id and parent its JSON has', async () => {
    const text = await readFile(join(FIXTURES, 'public', 'claude-SYNTHETIC-rewind-branch-compaction.jsonl'), 'utf8');
    let checked = 0;
    for (const line of text.split('\n').filter(Boolean)) {
      const v = JSON.parse(line) as { uuid?: string; parentUuid?: string | null; logicalParentUuid?: string; isSidechain?: boolean };
      if (typeof v.uuid !== 'string' || v.isSidechain) continue;
      expect(lineLink(Buffer.from(line))).toEqual({ id: v.uuid, parent: v.parentUuid ?? v.logicalParentUuid ?? null });
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });
});
