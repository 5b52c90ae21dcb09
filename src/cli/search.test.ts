import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRANCHED, copyClaudeHome, inCopy } from '../../test/fixtures.js';
import { ADAPTERS } from '../engine/agents/registry.js';
import { captureCli } from '../../test/cli-capture.js';

const cli = (argv: string[], env: NodeJS.ProcessEnv) => captureCli(argv, { env });

async function home() {
  const root = await copyClaudeHome();
  return { root, env: { CLAUDE_CONFIG_DIR: root, CODEX_HOME: join(root, '..', 'no-codex'), REWIND_CACHE_DIR: join(root, '..', 'cache') } };
}

describe('rewind-app search', () => {
  it('exits 0 with hits grouped by session (every hit counted), 3 with none, 2 on bad usage', async () => {
    const h = await home();
    const r = await cli(['search', 'VERSION', '--json'], h.env);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.notSearched).toEqual([]);
    const branched = doc.sessions.find((s: { sessionId: string }) => s.sessionId === '9ee005d2-71bf-404d-813f-f64902d8df5f');
    expect(branched.count).toBe(2);
    expect(branched.prompts[0].snippet.slice(...branched.prompts[0].highlights[0])).toBe('version');
    const text = await cli(['search', '"a.txt version one"'], h.env);
    expect(text.code).toBe(0);
    expect(text.out).toContain('[a.txt version one]');
    expect((await cli(['search', 'no-such-word-anywhere'], h.env)).code).toBe(3);
    expect((await cli(['search', 'version', '--agent', 'codex'], h.env)).code).toBe(3);
    expect((await cli(['search', 'version', '--project', '/home/dev/projects/linear', '--json'], h.env)).out).not.toContain('9ee005d2');
    const limited = JSON.parse((await cli(['search', 'version', '--limit', '1', '--json'], h.env)).out);
    expect(limited.sessions).toHaveLength(1);
    expect(limited.moreSessions).toBeGreaterThan(0);
    for (const bad of [['search'], ['search', 'x', '--limit', '0'], ['search', 'x', '--agent', 'nope']]) {
      const u = await cli(bad, h.env);
      expect(u.code, bad.join(' ')).toBe(2);
      expect(u.err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('sees an append at once, and sessions --json counts live and abandoned prompts as the timeline does', async () => {
    const h = await home();
    const file = inCopy(h.root, BRANCHED);
    expect((await cli(['search', 'pomegranate'], h.env)).code).toBe(3);
    const last = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => typeof l.uuid === 'string' && !l.isSidechain).pop()!;
    await appendFile(file, `${JSON.stringify({ parentUuid: last.uuid, isSidechain: false, userType: 'external', cwd: last.cwd, sessionId: last.sessionId, version: '2.1.330', type: 'user', message: { role: 'user', content: 'add a pomegranate' }, uuid: 'aaaaaaaa-0000-4000-8000-000000000001', timestamp: new Date().toISOString() })}\n`);
    const r = JSON.parse((await cli(['search', 'pomegranate', '--json'], h.env)).out);
    expect(r.sessions.map((s: { transcriptPath: string }) => s.transcriptPath)).toEqual([file]);
    const list = JSON.parse((await cli(['sessions', '--json'], h.env)).out);
    for (const s of list.sessions) {
      const t = await ADAPTERS.claude.timeline(s.transcriptPath);
      expect(s.promptCount, s.id).toBe(t.prompts.length);
      expect(s.livePromptCount, s.id).toBe(t.prompts.filter((p) => p.active).length);
    }
  });

  it.skipIf(process.platform === 'win32')('search and sessions never hang on a FIFO or stop on a link named *.idx: one line, then the index is rebuilt', async () => {
    const h = await home();
    const ix = join(h.env.REWIND_CACHE_DIR, 'index');
    await mkdir(ix, { recursive: true });
    execFileSync('mkfifo', [join(ix, 'seg-000000000000001-1-a.idx')]);
    await symlink(join(ix, 'nowhere'), join(ix, 'seg-000000000000002-1-b.idx'));
    const r = await cli(['search', 'VERSION', '--json'], h.env);
    expect(r.code).toBe(0);
    expect(r.err.trim().split('\n')).toEqual([expect.stringMatching(/^rewind-app: search index: seg-000000000000001-1-a\.idx is not a regular file; rebuilding it$/)]);
    const again = await cli(['sessions', '--json'], h.env);
    expect(again.code).toBe(0);
    expect(again.err).toBe('');
    expect(JSON.parse(again.out).sessions.length).toBeGreaterThan(0);
  });
});
