import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import type { AgentAdapter } from '../agents/adapter.js';
import { ADAPTERS } from '../agents/registry.js';
import { scanSession } from './scan-file.js';

// Search never depends on how an agent spells its JSON: every agent's real fixtures, written again
// with spaces after `:` and `,` (as Python's json.dumps does), keys in reverse order and every
// non-ASCII character escaped, give the same prompts as the files as recorded.

const AGENT_FIXTURES: [string, AgentAdapter, string][] = [
  ['claude', ADAPTERS.claude, 'claude-code-2.1.330'],
  ['codex', ADAPTERS.codex, 'codex-0.169'],
  ['droid', ADAPTERS.droid, 'droid-real'],
  ['qwen', ADAPTERS.qwen, 'qwen-real'],
  ['gemini', ADAPTERS.gemini, 'gemini-real'],
  ['copilot', ADAPTERS.copilot, 'copilot-1.0.102'],
];

/** A JSON serializer with spaces (JSON.stringify has no such option: its `space` also breaks lines). */
function spaced(v: unknown, reverse: boolean): string {
  if (Array.isArray(v)) return `[${v.map((x) => spaced(x, reverse)).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (reverse) keys.reverse();
    return `{${keys.map((k) => `${ascii(JSON.stringify(k))}: ${spaced((v as Record<string, unknown>)[k], reverse)}`).join(', ')}}`;
  }
  return ascii(JSON.stringify(v));
}
const ascii = (s: string) => s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

async function jsonlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) if (e.isFile() && e.name.endsWith('.jsonl')) out.push(join(e.parentPath, e.name));
  return out.sort();
}

const made: string[] = [];
afterAll(() => Promise.all(made.map((d) => rm(d, { recursive: true, force: true }))));

const promptsOf = (path: string, adapter: AgentAdapter) => {
  const s = scanSession(path, adapter.promptLines, null);
  s.release();
  // Codex names a prompt by its line's offset, which a longer spelling moves: ids are compared where they are the agent's own.
  return s.prompts.map((p) => ({ uuid: adapter.id === 'codex' ? 'offset' : p.uuid, text: p.text }));
};

describe('search whatever the JSON spelling', () => {
  it.each(AGENT_FIXTURES)('%s: every prompt of every fixture is found when the lines are written with spaces, keys reordered and escapes', async (_id, adapter, folder) => {
    const dir = await tempDir('rewind-spelling-');
    made.push(dir);
    let total = 0;
    for (const file of await jsonlFiles(join(FIXTURES, folder))) {
      const want = promptsOf(file, adapter);
      total += want.length;
      const lines = (await readFile(file, 'utf8')).split('\n');
      for (const reverse of [false, true]) {
        const out = join(dir, `${reverse ? 'r' : 's'}-${file.split('/').pop()}`);
        await writeFile(out, lines.map((l) => (l.trim() ? spaced(JSON.parse(l), reverse) : l)).join('\n'));
        expect(promptsOf(out, adapter), `${file} ${reverse ? 'reordered' : 'spaced'}`).toEqual(want);
      }
    }
    expect(total).toBeGreaterThan(0);
  });
});
