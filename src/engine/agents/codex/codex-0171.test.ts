import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { codex } from './adapter.js';
import { parseRollout } from './rollout.js';

/** A session the real Codex CLI 0.171.0 wrote (offline, scripted model): three prompts, two shell calls. */
const ID = '01a21eac-cb05-71e1-9656-5740224a2604';
const ROLLOUT = join(FIXTURES, 'codex-0.171', 'sessions', '2026', '11', '27', `rollout-2026-11-27T20-22-50-${ID}.jsonl`);

describe('Codex CLI 0.171 rollouts', () => {
  it('are read like 0.169 ones: prompts from the history items, their shell calls, every line an ordinal', async () => {
    const t = await parseRollout(ROLLOUT);
    expect(t.session).toMatchObject({ id: ID, version: '0.171.0', cwd: '/home/dev/projects/demo' });
    expect(t.prompts.map((p) => p.text)).toEqual(['WRITE notes/a.txt alpha-one', 'BASH echo gamma >> notes/a.txt', 'plain question three']);
    expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['exec_command'], ['exec_command'], []]);
    expect(t.issues).toEqual([]);
    const ordinals = (await readFile(ROLLOUT, 'utf8')).trimEnd().split('\n').map((l) => (JSON.parse(l) as { ordinal: number }).ordinal);
    expect(ordinals).toEqual(ordinals.map((_, i) => i));
  });

  it('0.171 is judged (writable); a newer minor is read only, in one line naming it and the command that judges it', async () => {
    expect(await codex.readOnlyReason!(ROLLOUT)).toBeNull();
    const dir = await tempDir('rewind-codex171-');
    const newer = join(dir, `rollout-2026-11-27T20-22-50-${ID}.jsonl`);
    await writeFile(newer, (await readFile(ROLLOUT, 'utf8')).replace('"cli_version":"0.171.0"', '"cli_version":"0.172.0"'));
    expect(await codex.readOnlyReason!(newer)).toBe(
      'This Codex session is read only: written by Codex CLI 0.172.0, newer than 0.171.0, the last version Rewind was checked against: shown, not rewritten (`npm run conformance -- --latest` judges it)',
    );
  });
});
