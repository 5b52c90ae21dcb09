import { copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINEAR, copyClaudeHome, inCopy, tempDir } from '../../../test/fixtures.js';
import { RewindService } from './rewind-service.js';

// What a door's caller can reach: sessions in the agents' roots only, and a missing thing is
// NOT_FOUND (never INTERNAL).

let root: string;
let outside: string;
let service: RewindService;
const made: string[] = [];

beforeAll(async () => {
  root = await copyClaudeHome();
  made.push(dirname(root));
  const elsewhere = await tempDir('rewind-reach-');
  made.push(elsewhere);
  outside = join(elsewhere, 'somewhere', '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl');
  await mkdir(dirname(outside), { recursive: true });
  await copyFile(LINEAR, outside);
  const none = join(elsewhere, 'none');
  service = new RewindService({ claudeRoot: root, roots: { codex: none, droid: none, qwen: none, gemini: none }, prefsFile: join(elsewhere, 'prefs.json'), cacheDir: join(elsewhere, 'cache'), watch: false, env: { HOME: elsewhere }, cli: { node: '/usr/bin/node', script: '/opt/rewind/out/cli/rewind-app.mjs' } });
});
afterAll(async () => {
  await service.close();
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

describe('the service reaches only the agents\' roots', () => {
  it('refuses a Claude-shaped transcript outside every root (timeline, turn, export), serves the same one inside', async () => {
    for (const [op, extra] of [['getTimeline', {}], ['getTurn', { promptUuid: 'x' }], ['exportSession', { format: 'md' }]] as const) {
      const r = await service.handle(op, { session: outside, ...extra });
      expect(r, op).toMatchObject({ ok: false, error: { code: 'UNSAFE_PATH' } });
    }
    const inside = await service.handle('getTimeline', { session: inCopy(root, LINEAR) });
    expect(inside.ok).toBe(true);
  });

  it('a missing session, a missing path or an unknown prompt is NOT_FOUND', async () => {
    const cases: [string, unknown][] = [
      ['getTimeline', { session: 'ffffffff' }],
      ['getTimeline', { session: join(root, 'projects', 'nope', 'nope.jsonl') }],
      ['comparePrompts', { a: { session: '2ea8980a', promptUuid: 'no-such-prompt' }, b: { session: '2ea8980a', promptUuid: 'no-such-prompt' } }],
      ['exportSession', { session: '2ea8980a', format: 'md', branch: 'no-such-prompt' }],
      ['getTurn', { session: '2ea8980a', promptUuid: 'no-such-prompt' }],
    ];
    for (const [op, payload] of cases) {
      const r = await service.handle(op, payload);
      expect(r, `${op} ${JSON.stringify(payload)}`).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    }
  });

  it('a project folder not on this machine: no hooks notice, and no hooks install makes the folder', async () => {
    const away = join(dirname(outside), 'not-on-this-machine');
    const status = await service.handle('hooksStatus', { project: away });
    expect(status).toMatchObject({ ok: true, value: { projectExists: false } });
    for (const payload of [{ project: away }, { project: away, scope: 'project' }, { project: away, agent: 'codex' }]) {
      const r = await service.handle('installHooks', payload);
      expect(r, JSON.stringify(payload)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringContaining('not on this machine') } });
    }
    expect(await stat(away).catch(() => null)).toBeNull();
    // A folder that is here: notice and install as before.
    const here = await tempDir('rewind-reach-project-');
    made.push(here);
    expect(await service.handle('hooksStatus', { project: here })).toMatchObject({ ok: true, value: { projectExists: true } });
    expect(await service.handle('installHooks', { project: here })).toMatchObject({ ok: true, value: { changed: true } });
  });
});
