import { copyFile, mkdir, rm } from 'node:fs/promises';
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
  service = new RewindService({ claudeRoot: root, roots: { codex: none, droid: none, qwen: none, gemini: none }, prefsFile: join(elsewhere, 'prefs.json'), cacheDir: join(elsewhere, 'cache'), watch: false, env: { HOME: elsewhere } });
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
});
