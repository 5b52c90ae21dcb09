import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../../test/fixtures.js';
import { CLAUDE_PROMPTS } from './prompt-lines.js';

const link = (v: unknown) => CLAUDE_PROMPTS.link(Buffer.from(JSON.stringify(v)));

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

  it('gives every message of the rewound-and-compacted fixture the id and parent its JSON has', async () => {
    const text = await readFile(join(FIXTURES, 'public', 'claude-SYNTHETIC-rewind-branch-compaction.jsonl'), 'utf8');
    let checked = 0;
    for (const line of text.split('\n').filter(Boolean)) {
      const v = JSON.parse(line) as { uuid?: string; parentUuid?: string | null; logicalParentUuid?: string; isSidechain?: boolean };
      if (typeof v.uuid !== 'string' || v.isSidechain) continue;
      expect(CLAUDE_PROMPTS.link(Buffer.from(line))).toEqual({ id: v.uuid, parent: v.parentUuid ?? v.logicalParentUuid ?? null });
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });
});
