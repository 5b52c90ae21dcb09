import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import { isRewindError } from '../errors.js';
import { ADAPTERS, ALL_ADAPTERS } from './registry.js';
import { compareVersions, newestJudged, newestVersionIn, newestVersionOfFile, unjudged, type JudgedVersions } from './judged.js';

const codexJudged: JudgedVersions = { cli: '@openai/codex', sameLayout: 'minor', recordsVersion: true, judged: [{ version: '0.169.0', date: 'd', cases: 'c' }, { version: '0.171.0', date: 'd', cases: 'c' }] };
const claudeJudged: JudgedVersions = { cli: '@anthropic-ai/claude-code', sameLayout: 'patch', recordsVersion: true, judged: [{ version: '2.1.332', date: 'd', cases: 'c' }, { version: '2.1.330', date: 'd', cases: 'c' }] };

async function errorCode(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (e) {
    return isRewindError(e) ? e.code : String(e);
  }
}

describe('the judged versions', () => {
  it('compares versions by number, not as text', () => {
    expect(compareVersions('0.171.0', '0.169.0')).toBeGreaterThan(0);
    expect(compareVersions('2.1.99', '2.1.330')).toBeLessThan(0);
    expect(compareVersions('0.169.2', '0.169.2')).toBe(0);
    expect(newestJudged(claudeJudged)).toBe('2.1.332');
  });

  it('a newer version than every judged one is unjudged; older and judged ones are not; Codex judges by minor', () => {
    expect(unjudged('0.172.0', codexJudged)).toBe('0.171.0');
    expect(unjudged('0.171.5', codexJudged)).toBeNull();
    expect(unjudged('0.170.0', codexJudged)).toBeNull();
    expect(unjudged('0.130.0', codexJudged)).toBeNull();
    expect(unjudged('2.1.333', claudeJudged)).toBe('2.1.332');
    expect(unjudged('2.1.332', claudeJudged)).toBeNull();
    expect(unjudged(null, claudeJudged)).toBeNull();
    expect(unjudged('not a version', claudeJudged)).toBeNull();
  });

  it('the newest version a transcript records is on its last lines, also past the first window', async () => {
    expect(newestVersionIn('{"version":"2.1.330"}\n{"version":"2.1.332"}\n{"version":"2.1.99"}\n{"text":"\\"version\\":\\"9.9.9\\""}')).toBe('2.1.332');
    const dir = await tempDir('rewind-judged-');
    const path = join(dir, 's.jsonl');
    const filler = `${JSON.stringify({ type: 'x', text: 'y'.repeat(1000), version: '2.1.330' })}\n`;
    await writeFile(path, filler.repeat(600) + `${JSON.stringify({ type: 'user', version: '2.1.340' })}\n`);
    expect(await newestVersionOfFile(path, 64 * 1024)).toBe('2.1.340');
  });

  it('the agents judged by the conformance tier keep their judged versions in their folders; each names its CLI and a version', async () => {
    const judgedIds: string[] = [];
    for (const a of ALL_ADAPTERS) {
      const text = await readFile(join(import.meta.dirname, a.id, 'judged.json'), 'utf8').catch(() => null);
      if (text === null) continue;
      judgedIds.push(a.id);
      const j = JSON.parse(text) as JudgedVersions;
      // An npm package name, scoped or not (OpenCode's is `opencode-ai`).
      expect(j.cli, a.id).toMatch(/^(@[a-z0-9-]+\/)?[a-z0-9][a-z0-9._-]*$/);
      expect(j.judged.length, a.id).toBeGreaterThan(0);
      // The gate is only as good as what the sessions record: an agent stamping its version is gated.
      expect(!!a.readOnlyReason, a.id).toBe(j.recordsVersion);
    }
    expect(judgedIds).toEqual(expect.arrayContaining(['claude', 'codex', 'droid', 'qwen', 'gemini', 'copilot', 'opencode', 'kilo']));
  });

  it('Claude Code: a transcript continued by an unjudged release is read only, one line naming it and the command; nothing is written', async () => {
    const claude = ADAPTERS.claude;
    const dir = await tempDir('rewind-judged-claude-');
    const src = join(FIXTURES, 'claude-code-2.1.330', 'home', '.claude', 'projects', '-home-dev-projects-linear', '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl');
    const text = await readFile(src, 'utf8');
    const path = join(dir, '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl');
    await writeFile(path, text);
    expect(await claude.readOnlyReason!(path)).toBeNull();
    // The last line a newer CLI wrote when it continued the session.
    const at = text.lastIndexOf('"version":"2.1.330"');
    await writeFile(path, `${text.slice(0, at)}"version":"2.1.999"${text.slice(at + '"version":"2.1.330"'.length)}`);
    const reason = await claude.readOnlyReason!(path);
    expect(reason).toBe('This Claude Code session is read only: written by Claude Code 2.1.999, newer than 2.1.332, the last version Rewind was checked against: shown, not rewritten (`npm run conformance -- --latest` judges it)');
    expect(reason).not.toContain('\n');
    const before = await readFile(path);
    expect(await errorCode(claude.rewind!({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: dir, force: true }))).toBe('UNSUPPORTED');
    expect(await readFile(path)).toEqual(before);
    expect((await readdir(dir)).sort()).toEqual(['2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl']);
  });

  it('Qwen Code: the same gate on the version its lines record', async () => {
    const qwen = ADAPTERS.qwen;
    const dir = await tempDir('rewind-judged-qwen-');
    const text = await readFile(join(FIXTURES, 'qwen-real', '3bdbd358-530a-423f-975a-65a14b180033.jsonl'), 'utf8');
    const path = join(dir, '3bdbd358-530a-423f-975a-65a14b180033.jsonl');
    await writeFile(path, text);
    expect(await qwen.readOnlyReason!(path)).toBeNull();
    await writeFile(path, text.replaceAll('"version":"0.24.4"', '"version":"0.25.0"'));
    expect(await qwen.readOnlyReason!(path)).toMatch(/^This Qwen Code session is read only: written by Qwen Code 0\.25\.0, newer than 0\.24\.4, .*`npm run conformance -- --latest`/);
    expect(await errorCode(qwen.rewind!({ transcriptPath: path, n: 1, mode: 'fork', projectRoot: dir }))).toBe('UNSUPPORTED');
    expect(await readdir(dir)).toEqual(['3bdbd358-530a-423f-975a-65a14b180033.jsonl']);
  });

  it('GitHub Copilot CLI: the same gate on the copilotVersion its session events record', async () => {
    const copilot = ADAPTERS.copilot;
    const home = await tempDir('rewind-judged-copilot-');
    const id = '9b53dc0a-a70e-4cda-b8ca-1378323e050b';
    const text = await readFile(join(FIXTURES, 'copilot-1.0.102', 'home', '.copilot', 'session-state', id, 'events.jsonl'), 'utf8');
    const dir = join(home, 'session-state', id);
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'events.jsonl');
    await writeFile(path, text);
    expect(await copilot.readOnlyReason!(path)).toBeNull();
    await writeFile(path, text.replaceAll('"copilotVersion":"1.0.102"', '"copilotVersion":"1.0.140"'));
    expect(await copilot.readOnlyReason!(path)).toMatch(/^This GitHub Copilot CLI session is read only: written by GitHub Copilot CLI 1\.0\.140, newer than 1\.0\.102, .*`npm run conformance -- --latest`/);
    const before = await readFile(path);
    expect(await errorCode(copilot.rewind!({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: home }))).toBe('UNSUPPORTED');
    expect(await readFile(path)).toEqual(before);
    expect(await readdir(join(home, 'session-state'))).toEqual([id]);
  });
});
