import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRANCHED, CC, LINEAR, SUBAGENT, tempDir } from '../../../test/fixtures.js';
import { parseTranscriptFile } from '../agents/claude/parse-transcript.js';
import { toTimeline } from '../agents/claude/timeline.js';
import { takeCheckpoint } from '../store/checkpoint.js';
import { comparePrompts, liveEnd } from './compare.js';
import { compareCode, diffTrees } from './compare-code.js';
import { costReport, formatCost } from '../../shared/insight/cost.js';
import { toHtml, toMarkdown } from './export.js';
import { clip, oneLine } from '../turn/text.js';
import { loadPrices } from './load-prices.js';
import { DEFAULT_PRICE_BOOK, priceOf, type PriceBook } from '../../shared/insight/prices.js';
import { agentTreeBefore } from './session-input.js';

const timelineOf = async (p: string) => toTimeline(await parseTranscriptFile(p));

/** Usage straight from the file, one count per API response (lines of one response share message.id). */
async function usageInFile(path: string) {
  const seen = new Set<string>();
  const sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    const e = JSON.parse(line) as { type?: string; isSidechain?: boolean; message?: { id?: string; usage?: Record<string, number> } };
    if (e.type !== 'assistant' || e.isSidechain || !e.message?.usage || seen.has(e.message.id ?? '')) continue;
    seen.add(e.message.id ?? '');
    const u = e.message.usage;
    sum.input += u.input_tokens ?? 0;
    sum.output += u.output_tokens ?? 0;
    sum.cacheRead += u.cache_read_input_tokens ?? 0;
    sum.cacheWrite += u.cache_creation_input_tokens ?? 0;
  }
  return sum;
}

const book: PriceBook = { ...DEFAULT_PRICE_BOOK, overrides: { 'claude-opus-5-5': { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 } } };

describe('cost', () => {
  it.each([['linear', LINEAR], ['branched', BRANCHED], ['subagent', SUBAGENT]])('the %s session: token sums equal the usage fields of its file', async (_n, path) => {
    const r = costReport(await timelineOf(path), DEFAULT_PRICE_BOOK);
    expect(r.session.tokens).toEqual(await usageInFile(path));
    // claude-opus-5-5 is in no price list: tokens only, never a guessed price.
    expect(r.session.usd).toBeNull();
    expect(r.unpricedModels).toEqual(['claude-opus-5-5']);
    expect(formatCost(r.session)).toMatch(/tokens$/);
  });

  it('prices every part at its own rate; live + abandoned = session; subtrees add up', async () => {
    const t = await timelineOf(BRANCHED);
    const r = costReport(t, book);
    const u = await usageInFile(BRANCHED);
    expect(r.session.usd).toBeCloseTo((u.input * 10 + u.output * 50 + u.cacheRead * 1 + u.cacheWrite * 12.5) / 1e6, 9);
    expect(r.deadBranches).toHaveLength(1);
    expect(r.deadBranches[0]!.prompts).toBe(2);
    expect(r.live.usd! + r.deadBranches[0]!.cost.usd!).toBeCloseTo(r.session.usd!, 9);
    // The first prompt's subtree is the whole session; the dead branch's root holds its branch.
    expect(r.prompts[t.prompts[0]!.uuid]!.subtree.usd).toBeCloseTo(r.session.usd!, 9);
    expect(r.prompts[r.deadBranches[0]!.root]!.subtree.usd).toBeCloseTo(r.deadBranches[0]!.cost.usd!, 9);
  });

  it('matches models by family, date suffix and provider prefix; a user table wins', async () => {
    expect(priceOf('claude-sonnet-4-5-20250929')?.input).toBe(3);
    expect(priceOf('anthropic/claude-haiku-4-5')?.output).toBe(5);
    expect(priceOf('gpt-5-codex')?.cacheRead).toBe(0.125);
    expect(priceOf('fake-model')).toBeNull();
    const dir = await tempDir();
    await writeFile(join(dir, 'prices.json'), JSON.stringify({ models: { 'fake-model': { input: 2, output: 4 } } }));
    const { book: own, notice } = await loadPrices({ REWIND_PRICES: join(dir, 'prices.json') });
    expect(notice).toBeNull();
    expect(priceOf('fake-model', own)).toEqual({ input: 2, output: 4, cacheRead: 2, cacheWrite: 2 });
    await writeFile(join(dir, 'bad.json'), '{"models": {"x": {"input": -1}}}');
    const bad = await loadPrices({ REWIND_PRICES: join(dir, 'bad.json') });
    expect(bad.notice).toMatch(/bad\.json is not a valid price table/);
    expect(bad.book).toBe(DEFAULT_PRICE_BOOK);
  });
});

describe('compare', () => {
  it('an abandoned prompt against the live end: the ancestor is where they split, each side runs to its end', async () => {
    const t = await timelineOf(BRANCHED);
    const dead = t.prompts.find((p) => !p.active)!;
    const cmp = comparePrompts(t, dead.uuid, t, liveEnd(t)!.uuid);
    expect(cmp.ancestor?.text).toBe('WRITE a.txt version two');
    expect(cmp.a.prompts.map((p) => p.text)).toEqual(['BASH echo bashmade > c.txt', 'WRITE b.txt bee']);
    expect(cmp.b.prompts.map((p) => p.text)).toEqual(['WRITE d.txt branch two', 'WRITE e.txt after branch']);
  });

  it('two points of one line stop at the picked prompts', async () => {
    const t = await timelineOf(LINEAR);
    const [p2, p4] = [t.prompts[1]!, t.prompts[3]!];
    const cmp = comparePrompts(t, p2.uuid, t, p4.uuid);
    expect(cmp.ancestor?.uuid).toBe(p2.uuid);
    expect(cmp.a.prompts).toEqual([]);
    expect(cmp.b.prompts.map((p) => p.number)).toEqual([3, 4]);
  });

  it('a fork against its original matches prompts across the two files', async () => {
    const t = await timelineOf(LINEAR);
    const fork = { ...t, session: { ...t.session, id: 'fork' }, prompts: t.prompts.slice(0, 2) };
    const cmp = comparePrompts(fork, liveEnd(fork)!.uuid, t, liveEnd(t)!.uuid);
    expect(cmp.ancestor?.number).toBe(2);
    expect(cmp.a.prompts).toEqual([]);
    expect(cmp.b.prompts).toHaveLength(3);
  });

  it('code: the abandoned side from Claude\'s file history, the live side from disk', async () => {
    const project = join(await tempDir(), 'branched');
    await cp(join(CC, 'projects', 'branched'), project, { recursive: true });
    const t = await timelineOf(BRANCHED);
    const cmp = comparePrompts(t, t.prompts.find((p) => !p.active)!.uuid, t, liveEnd(t)!.uuid);
    const claudeRoot = join(CC, 'home', '.claude');
    const code = await compareCode(project, [t], cmp.a.end, cmp.b.end, await agentTreeBefore(BRANCHED, claudeRoot, project));
    expect(code.a.kind).toBe('agent-history');
    expect(code.b.kind).toBe('disk');
    expect(code.files.map((f) => [f.status, f.path, f.added, f.removed])).toEqual([
      ['A', 'd.txt', 1, 0],
      ['A', 'e.txt', 1, 0],
    ]);
  });

  it('code: from Rewind checkpoints taken after each side\'s last turn', async () => {
    const project = await tempDir();
    await mkdir(join(project, 'src'));
    await writeFile(join(project, 'src', 'a.ts'), 'one\ntwo\nthree\n');
    const t = await timelineOf(LINEAR);
    const [p1, p2] = [t.prompts[0]!, t.prompts[1]!];
    const at = (s: string) => new Date(Date.parse(s)).toISOString();
    // Taken between #1's turn and #2, as the prompt hook would.
    await takeCheckpoint({ projectRoot: project, trigger: 'manual', now: () => Date.parse(at(p2.timestamp!)) - 1 });
    await writeFile(join(project, 'src', 'a.ts'), 'one\n2\nthree\nfour\n');
    const code = await compareCode(project, [t], p1, t.prompts[t.prompts.length - 1]!);
    expect(code.a.kind).toBe('checkpoint');
    expect(code.b.kind).toBe('disk');
    expect(code.files).toHaveLength(1);
    expect(code.files[0]).toMatchObject({ path: 'src/a.ts', status: 'M', added: 2, removed: 1 });
    expect(code.files[0]!.patch).toContain('-two\n+2');
  });

  it('diffTrees compares only the paths both sides speak for', async () => {
    const read = async (r: string) => Buffer.from(r);
    const a = { tree: new Map([['x', { kind: 'f' as const, ref: 'x1\n', mode: 0o644, size: 3 }]]), coverage: new Set(['x']), read };
    const b = { tree: new Map([['x', { kind: 'f' as const, ref: 'x2\n', mode: 0o644, size: 3 }], ['y', { kind: 'f' as const, ref: 'y\n', mode: 0o644, size: 2 }]]), coverage: 'all' as const, read };
    expect((await diffTrees(a, b)).map((f) => f.path)).toEqual(['x']);
  });
});

describe('export', () => {
  const turns = (t: Awaited<ReturnType<typeof timelineOf>>) =>
    new Map(t.prompts.map((p, i) => [p.uuid, [{ kind: 'text' as const, title: 'Claude', body: i === 0 ? 'use key sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 now' : `reply ${i}` }, { kind: 'tool-call' as const, title: 'Bash', body: 'curl -H "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123"' }]]));

  it('markdown of a branch: the path through the prompt, secrets redacted and counted', async () => {
    const t = await timelineOf(BRANCHED);
    const dead = t.prompts.find((p) => !p.active)!;
    const r = toMarkdown({ timeline: t, agentName: 'Claude Code', branch: dead.uuid, turns: turns(t), redact: true, exportedAt: 'T' });
    expect(r.prompts).toBe(4);
    expect(r.content).toContain('## #2 WRITE a.txt version two');
    expect(r.content).toContain('BASH echo bashmade > c.txt (abandoned branch)');
    expect(r.content).not.toContain('WRITE d.txt branch two');
    expect(r.content).not.toContain('sk-ant-api03-ABCDEF');
    expect(r.content).not.toContain('abcdefghijklmnopqrstuvwxyz0123');
    expect(r.redacted).toEqual({ 'Anthropic key': 1, 'auth header': 4 });
    expect(r.content).toContain('5 secrets redacted: 1 Anthropic key, 4 auth header.');
  });

  it('html: one self-contained file, everything escaped, tool calls collapsed', async () => {
    const t = await timelineOf(LINEAR);
    t.prompts[0]!.text = '<script>alert(1)</script>';
    const r = toHtml({ timeline: t, agentName: 'Claude Code', turns: turns(t), redact: false, exportedAt: 'T' });
    expect(r.content).toMatch(/^<!doctype html>/);
    expect(r.content).not.toMatch(/<script|<link|src="http|href="http/);
    expect(r.content).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(r.content.match(/<details class="tool-call">/g)).toHaveLength(t.prompts.length);
    expect(r.content).toContain('Secrets were NOT redacted');
  });

  it('redacts before any cut: the title, a heading at 100 characters, a body clipped at 8,000', async () => {
    const t = await timelineOf(LINEAR);
    const secret = 'Zq9vX2mW7pL4kR8tY1nB5cJ3hF6dG0sA';
    // The secret straddles the title's 80 and the heading's 100 characters.
    t.prompts[0]!.text = `${'set the deploy variables for the staging cluster then run it '.slice(0, 70)} PGPASSWORD=${secret} and go`;
    t.session.title = oneLine(t.prompts[0]!.text, 80);
    const long = `${'x '.repeat(3995)}ghp_${secret}0123 and more ${'y'.repeat(100)}`;
    const tm = new Map(t.prompts.map((p) => [p.uuid, [{ kind: 'tool-result' as const, title: 'Result', body: clip(long) }, { kind: 'text' as const, title: 'Claude', body: 'ok' }]]));
    for (const fmt of [toMarkdown, toHtml]) {
      const r = fmt({ timeline: t, agentName: 'Claude Code', turns: tm, redact: true, exportedAt: 'T' });
      for (let k = 4; k <= secret.length; k++) expect(r.content, `${fmt.name}: ${secret.slice(0, k)}`).not.toContain(secret.slice(0, k));
      expect(r.title).not.toContain(secret.slice(0, 4));
    }
  });

  it('markdown escapes the raw HTML of prompts and replies, and keeps code as written', async () => {
    const t = await timelineOf(LINEAR);
    t.prompts[0]!.text = 'look <img src=x onerror=alert(1)> here';
    t.session.title = '<script>alert(2)</script>';
    const tm = new Map(t.prompts.map((p) => [p.uuid, [{ kind: 'text' as const, title: 'Claude', body: 'reply <iframe src="javascript:alert(3)"></iframe> and `a<b` and\n```html\n<div>code</div>\n```' }]]));
    const r = toMarkdown({ timeline: t, agentName: 'Claude Code', turns: tm, redact: false, exportedAt: 'T' });
    expect(r.content).not.toMatch(/<img|<script|<iframe/);
    expect(r.content).toContain('look &lt;img src=x onerror=alert(1)> here');
    expect(r.content).toContain('`a<b`');
    expect(r.content).toContain('```html\n<div>code</div>\n```');
  });
});
