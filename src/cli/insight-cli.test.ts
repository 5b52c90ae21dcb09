import { execFileSync } from 'node:child_process';
import { readFile, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINEAR, SUBAGENT, copyClaudeHome, inCopy, tempDir } from '../../test/fixtures.js';
import { captureCli } from '../../test/cli-capture.js';

const cli = (argv: string[], env: NodeJS.ProcessEnv, cwd = '/') => captureCli(argv, { env: { REWIND_NO_FORWARD: '1', ...env }, cwd });

async function home() {
  const root = await copyClaudeHome();
  const past = new Date(Date.now() - 3600_000);
  for (const f of [LINEAR, SUBAGENT]) await utimes(inCopy(root, f), past, past);
  return { root, env: { CLAUDE_CONFIG_DIR: root } };
}

describe('rewind-app compare', () => {
  it('a fork against its original: matched across the two files, the original runs on', async () => {
    const h = await home();
    const project = await tempDir();
    const linear = inCopy(h.root, LINEAR);
    const fork = await cli(['back', '2', '--transcript', linear, '--project', project], h.env);
    expect(fork.code, fork.err).toBe(0);
    const forkId = /Fork created: ([0-9a-f-]{36})/.exec(fork.out)![1]!;
    const r = await cli(['compare', forkId, '2ea8980a', '--json', '--project', project], h.env);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out) as { ancestor: { number: number }; a: { prompts: unknown[]; sessionId: string }; b: { prompts: Array<{ text: string }> } };
    expect(j.ancestor.number).toBe(3);
    expect(j.a.sessionId).toBe(forkId);
    expect(j.a.prompts).toEqual([]);
    expect(j.b.prompts.map((p) => p.text)).toEqual(['EDIT notes.md alpha gamma', 'WRITE b.txt bee']);
  });

  it('across a compaction: the prompt after /compact still descends from the first', async () => {
    const h = await home();
    const r = await cli(['compare', 'ec33f68b:#1', 'ec33f68b:#3', '--project', await tempDir()], h.env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('Common ancestor: #1 "SPAWN sub.txt"');
    expect(r.out).toMatch(/B: 2 prompts in ec33f68b/);
    expect(r.out).toContain('#3   WRITE post.txt after compaction');
  });

  it('a prompt that does not exist: one line, exit 1; a missing side: usage, exit 2', async () => {
    const h = await home();
    const r = await cli(['compare', '2ea8980a:#9', '2ea8980a:#1'], h.env);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toEqual(['rewind-app: no prompt #9 in session 2ea8980a-26fe-4928-aab5-4ebf6074b664']);
    expect((await cli(['compare', '2ea8980a'], h.env)).code).toBe(2);
  });
});

describe('rewind-app export', () => {
  it('writes a user-only HTML file, refuses to replace it without --force', async () => {
    const h = await home();
    const out = join(await tempDir(), 'linear.html');
    const r = await cli(['export', '2ea8980a', '--out', out], h.env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Exported 5 prompts to ${out}`);
    expect(r.err).toContain('0 secrets redacted');
    expect(((await stat(out)).mode & 0o777).toString(8)).toBe('600');
    const html = await readFile(out, 'utf8');
    expect(html).toContain('WRITE b.txt bee');
    const again = await cli(['export', '2ea8980a', '--out', out], h.env);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/exists \(pass --force to replace it\)/);
  });

  it.skipIf(process.platform === 'win32')('--out refuses a FIFO and a live transcript even with --force; nothing is replaced', async () => {
    const h = await home();
    const fifo = join(await tempDir(), 'pipe.md');
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['export', '2ea8980a', '--out', fifo, '--force'], h.env);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toEqual([expect.stringMatching(/refusing to write the export to .*pipe\.md: it is not a regular file/)]);
    expect((await stat(fifo)).isFIFO()).toBe(true);
    const transcript = inCopy(h.root, LINEAR);
    const before = await readFile(transcript, 'utf8');
    const t = await cli(['export', '2ea8980a', '--out', transcript, '--force'], h.env);
    expect(t.code).toBe(1);
    expect(t.err).toMatch(/inside an agent's folder/);
    expect(await readFile(transcript, 'utf8')).toBe(before);
  });

  it.skipIf(process.platform === 'win32')('timeline never hangs on a FIFO named prices.json: built-in prices and one warning', async () => {
    const h = await home();
    const fifo = join(await tempDir(), 'prices.json');
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['timeline', '2ea8980a'], { ...h.env, REWIND_PRICES: fifo });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/prices\.json was not read \(it is not a regular file\); using the built-in prices/);
  });

  it('markdown of one branch to stdout; --no-redact says so', async () => {
    const h = await home();
    const r = await cli(['export', '2ea8980a', '--branch', '#2', '--format', 'md', '--no-redact'], h.env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^# /);
    expect(r.out).toContain('branch through #2');
    expect(r.err).toContain('secrets were not redacted');
    expect((await cli(['export', '2ea8980a', '--format', 'pdf'], h.env)).code).toBe(2);
  });
});

describe('timeline shows cost', () => {
  it('with a user price table: dollars in the header and per row, and in --json', async () => {
    const h = await home();
    const prices = join(await tempDir(), 'prices.json');
    await (await import('node:fs/promises')).writeFile(prices, JSON.stringify({ models: { 'claude-opus-5-5': { input: 1000, output: 2000 } } }));
    const env = { ...h.env, REWIND_PRICES: prices };
    const t = await cli(['timeline', '2ea8980a'], env);
    expect(t.code, t.err).toBe(0);
    expect(t.out).toMatch(/^cost \$\d+\.\d{2}$/m);
    expect(t.out).toMatch(/WRITE a\.txt version one .* · \$\d+\.\d{2}/);
    const j = JSON.parse((await cli(['timeline', '2ea8980a', '--json'], env)).out) as { cost: { session: { usd: number }; pricesAsOf: string } };
    expect(j.cost.session.usd).toBeGreaterThan(0);
    expect(j.cost.pricesAsOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
