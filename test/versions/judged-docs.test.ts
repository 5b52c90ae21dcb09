import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgedTable, readAllJudged, withTable } from './judged-table.js';

describe('docs/agents.md shows the judged versions', () => {
  it('its table is the one generated from every agent’s judged.json (npm run conformance -- --write regenerates it)', async () => {
    const doc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'agents.md'), 'utf8');
    const agents = await readAllJudged();
    expect(agents.map((a) => a.id)).toEqual(expect.arrayContaining(['claude', 'codex', 'droid', 'qwen', 'gemini']));
    const table = judgedTable(agents);
    expect(withTable(doc, table), 'docs/agents.md has the judged-versions block').not.toBeNull();
    expect(withTable(doc, table)).toBe(doc);
    for (const a of agents) for (const v of a.judged.judged) expect(table).toContain(v.version);
  });
});
