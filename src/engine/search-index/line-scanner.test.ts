import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_PROMPTS } from '../agents/claude/prompt-lines.js';
import { EMPTY_STATE, scanSession, type PreviousScan } from './scan-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rewind-linescan-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A deterministic generator (the same session on every run). */
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

interface Msg {
  uuid: string;
  parentUuid: string | null;
  logicalParentUuid?: string;
  isSidechain: boolean;
  prompt: boolean;
}

/**
 * A Claude session of `n` messages in the real key order: prompts, tool results, assistant turns
 * with the uuid after the message, native rewinds (a prompt under an older message), subagent lines,
 * compaction boundaries, ids of other lengths, and one tool result longer than the scanner's input.
 */
function session(n: number, seed: number): { lines: string[]; msgs: Msg[] } {
  const rand = rng(seed);
  const lines: string[] = [];
  const msgs: Msg[] = [];
  let last: string | null = null;
  const all: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    const uuid = i % 97 === 5 ? `short-${i}` : `${String(i).padStart(8, '0')}-aaaa-4bbb-8ccc-${Math.floor(rand() * 1e12).toString().padStart(12, '0')}`;
    let parent: string | null = last;
    if (r < 0.04 && all.length > 2) parent = all[Math.floor(rand() * all.length)]!; // a rewind: under an older message
    const base = { parentUuid: parent, isSidechain: false, promptId: 'p', type: 'user' };
    if (r < 0.2) {
      lines.push(JSON.stringify({ ...base, message: { role: 'user', content: `prompt ${i} ${'words '.repeat(Math.floor(rand() * 30))}` }, uuid, timestamp: '2026-11-01T00:00:00.000Z', userType: 'external', cwd: '/w', sessionId: 's' }));
      msgs.push({ uuid, parentUuid: parent, isSidechain: false, prompt: true });
    } else if (r < 0.5) {
      const big = i === Math.floor(n / 2) ? 3 * 1024 * 1024 : Math.floor(rand() * 3000);
      lines.push(JSON.stringify({ ...base, message: { role: 'user', content: [{ tool_use_id: `t${i}`, type: 'tool_result', content: 'r'.repeat(big) }] }, uuid, timestamp: '2026-11-01T00:00:00.000Z', toolUseResult: { stdout: 'x' } }));
      msgs.push({ uuid, parentUuid: parent, isSidechain: false, prompt: false });
    } else if (r < 0.55) {
      // A subagent's line: not on the session's path, and not remembered.
      lines.push(JSON.stringify({ parentUuid: last, isSidechain: true, type: 'user', message: { role: 'user', content: 'side prompt' }, uuid: `side-${i}` }));
      continue;
    } else if (r < 0.57 && last) {
      lines.push(JSON.stringify({ parentUuid: null, logicalParentUuid: last, isSidechain: false, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', uuid }));
      msgs.push({ uuid, parentUuid: null, logicalParentUuid: last, isSidechain: false, prompt: false });
    } else {
      lines.push(JSON.stringify({ parentUuid: parent, isSidechain: false, message: { id: 'm', role: 'assistant', content: [{ type: 'text', text: `"uuid":"fake" user" ${'z'.repeat(Math.floor(rand() * 900))}` }] }, type: 'assistant', uuid, timestamp: '2026-11-01T00:00:00.000Z' }));
      msgs.push({ uuid, parentUuid: parent, isSidechain: false, prompt: false });
    }
    all.push(uuid);
    last = uuid;
    if (rand() < 0.05) lines.push(JSON.stringify({ type: 'file-history-snapshot', messageId: uuid, snapshot: { messageId: uuid } }));
  }
  return { lines, msgs };
}

/** Prompts in all, and on the path from the last message back to the root (parsed JSON: the reference). */
function reference(msgs: Msg[]): { total: number; live: number; leaf: string | null } {
  const byId = new Map(msgs.map((m) => [m.uuid, m]));
  const leaf = msgs[msgs.length - 1]?.uuid ?? null;
  let live = 0;
  const seen = new Set<string>();
  for (let id = leaf; id && !seen.has(id); ) {
    seen.add(id);
    const m = byId.get(id);
    if (!m) break;
    if (m.prompt) live++;
    id = m.parentUuid ?? m.logicalParentUuid ?? null;
  }
  return { total: msgs.filter((m) => m.prompt).length, live, leaf };
}

describe('the line scanner (WebAssembly) on generated sessions', () => {
  it('counts every prompt and the live path of a session of 6,000 messages with rewinds, read whole and in appends', async () => {
    const { lines, msgs } = session(6000, 7);
    const want = reference(msgs);
    expect(want.live).toBeLessThan(want.total); // the rewinds abandon prompts
    const path = join(dir, 's.jsonl');
    await writeFile(path, lines.map((l) => `${l}\n`).join(''));
    const whole = scanSession(path, CLAUDE_PROMPTS, null);
    whole.release();
    expect(whole.state.counts).toEqual({ total: want.total, live: want.live });
    expect(whole.state.leaf).toBe(want.leaf);
    expect(whole.prompts.map((p) => p.uuid)).toEqual(msgs.filter((m) => m.prompt).map((m) => m.uuid));
    // The last 16 ids and their depths, as a later append needs them.
    expect(Object.keys(whole.state.recent)).toEqual(msgs.slice(-16).map((m) => m.uuid));

    // The same file written in batches, each read as an append from the record before it.
    const rand = rng(11);
    const apath = join(dir, 'a.jsonl');
    await writeFile(apath, '');
    let prev: PreviousScan | null = null;
    let k = 0;
    let appends = 0;
    while (k < lines.length) {
      const take = 1 + Math.floor(rand() * 40);
      await appendFile(apath, lines.slice(k, k + take).map((l) => `${l}\n`).join(''));
      k += take;
      const s = scanSession(apath, CLAUDE_PROMPTS, prev);
      s.release();
      if (s.mode === 'append') appends++;
      prev = { fp: s.fp, state: s.state };
    }
    expect(appends).toBeGreaterThan(10);
    expect(prev!.state.counts).toEqual({ total: want.total, live: want.live });
    expect(prev!.state.leaf).toBe(want.leaf);
  });

  it('says an append needs a full read when a parent is not among the ids it remembers', async () => {
    const { lines } = session(300, 3);
    const path = join(dir, 's.jsonl');
    await writeFile(path, lines.map((l) => `${l}\n`).join(''));
    const first = scanSession(path, CLAUDE_PROMPTS, null);
    first.release();
    // A prompt under the very first message: far older than the 16 remembered.
    const firstId = (JSON.parse(lines[0]!) as { uuid: string }).uuid;
    await appendFile(path, `${JSON.stringify({ parentUuid: firstId, isSidechain: false, type: 'user', message: { role: 'user', content: 'again' }, uuid: 'late-1' })}\n`);
    const again = scanSession(path, CLAUDE_PROMPTS, { fp: first.fp, state: first.state });
    again.release();
    expect(again.mode).toBe('full');
    expect(again.state.leaf).toBe('late-1');
    expect(again.state.counts.total).toBe(first.state.counts.total + 1);
  });

  it('reads a session from an empty state the same as from EMPTY_STATE and ignores lines without ids', async () => {
    const path = join(dir, 'plain.jsonl');
    await writeFile(path, ['{"type":"summary","summary":"s","leafUuid":"x"}', '{"type":"user","message":{"role":"user","content":"hello"},"uuid":"u1"}', 'not json user"', ''].join('\n'));
    const s = scanSession(path, CLAUDE_PROMPTS, null);
    s.release();
    expect(s.state.counts).toEqual({ total: 1, live: 0 });
    expect(s.state.leaf).toBe(EMPTY_STATE.leaf);
    expect(s.prompts.map((p) => p.text)).toEqual(['hello']);
  });
});

describe('ids of any length', () => {
  // 10 KB: the id table's memory grows while a message is written; 100 KB: the last 16 ids do not fit in one string.
  for (const bytes of [10_000, 30_000, 100_000])
  it(`follows the chain and remembers the last ids with their depths (ids of ${bytes} bytes)`, async () => {
    const long = (k: number) => `${String(k).padStart(4, '0')}${'i'.repeat(bytes)}`;
    const lines: string[] = [];
    for (let k = 0; k < 20; k++) lines.push(JSON.stringify({ parentUuid: k ? long(k - 1) : null, isSidechain: false, type: 'user', message: { role: 'user', content: `p${k}` }, uuid: long(k) }));
    const path = join(dir, 'long.jsonl');
    await writeFile(path, lines.map((l) => `${l}\n`).join(''));
    const s = scanSession(path, CLAUDE_PROMPTS, null);
    s.release();
    expect(s.state.counts).toEqual({ total: 20, live: 20 });
    expect(Object.entries(s.state.recent)).toEqual(Array.from({ length: 16 }, (_, k) => [long(k + 4), k + 5]));
    expect(s.state.leaf).toBe(long(19));
  });
});

describe('the committed WebAssembly module', () => {
  it('is what its AssemblyScript source compiles to (run node scripts/build-wasm.mjs after changing it)', async () => {
    const { generate } = await import('../../../scripts/build-wasm.mjs');
    const committed = await readFile(new URL('./line-scan-wasm.ts', import.meta.url), 'utf8');
    expect(await generate()).toBe(committed);
  }, 60_000);
});
