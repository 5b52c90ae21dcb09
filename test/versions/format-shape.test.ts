import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../fixtures.js';
import { describeChanges, formatChanges, kindOf, normalizeName, shapeOf, type Shape } from './format-shape.js';

/** A real Codex recording: its rollouts' lines and the files its `$CODEX_HOME` held (home-files.txt). */
async function codexShape(version: string): Promise<Shape> {
  const home = join(FIXTURES, `codex-${version}`);
  const files = (await readFile(join(home, 'home-files.txt'), 'utf8')).split('\n').filter(Boolean);
  const lines: string[] = [];
  for (const rel of (await readdir(join(home, 'sessions'), { recursive: true })).filter((f) => f.endsWith('.jsonl'))) {
    lines.push(...(await readFile(join(home, 'sessions', rel), 'utf8')).split('\n'));
  }
  return shapeOf(lines, files);
}

describe('the format-change report', () => {
  it('Codex 0.169 -> 0.171: no new record type, a new metadata field on history items, new lock files in CODEX_HOME', async () => {
    const c = formatChanges(await codexShape('0.169'), await codexShape('0.171'));
    expect(c.newKinds).toEqual([]);
    expect(c.newFields).toEqual(['response_item/function_call: metadata.model_search_state', 'response_item/function_call_output: metadata.model_search_state', 'response_item/message: metadata.model_search_state']);
    // The ordinal, thread_history_1.sqlite, goals_1.sqlite and thread-writer-locks/ were all in 0.169 already.
    expect(c.newFiles).toEqual(['.tmp/.staging-cleanup.lock', '.tmp/.staging.lock']);
    expect(c.newFields.some((f) => f.endsWith(': ordinal'))).toBe(false);
    expect(describeChanges(c)).toBe('new fields: response_item/function_call: metadata.model_search_state, response_item/function_call_output: metadata.model_search_state, response_item/message: metadata.model_search_state; new files: .tmp/.staging-cleanup.lock, .tmp/.staging.lock');
  });

  it('the same recording against itself changes nothing', async () => {
    const s = await codexShape('0.171');
    expect(describeChanges(formatChanges(s, s))).toBe('none');
  });

  it('names new record types, new nested fields and what went, ids and dates folded away', () => {
    const before = shapeOf(['{"type":"user","uuid":"a","message":{"content":[{"type":"text"}]}}', 'not json'], ['projects/-w/0f8fad5b-d9cb-469f-a165-70867728950e.jsonl', 'settings.json']);
    const after = shapeOf(
      ['{"type":"user","uuid":"b","message":{"content":[{"type":"text","cache":1}]}}', '{"type":"system","subtype":"turn_duration","ms":3}'],
      ['projects/-w/7c9e6679-7425-40de-944b-e07fc1f90ae7.jsonl', 'sessions/123.json', 'state_5.sqlite-wal', 'state_5.sqlite-shm'],
    );
    const c = formatChanges(before, after);
    expect(c).toEqual({
      newKinds: ['system/turn_duration'],
      goneKinds: [],
      newFields: ['user: message.content[].cache'],
      goneFields: [],
      newFiles: ['sessions/<n>.json'],
      goneFiles: ['settings.json'],
    });
    expect(kindOf({ type: 'event_msg', payload: { type: 'task_started' } })).toBe('event_msg/task_started');
    expect(normalizeName('rollout-2026-11-27T20-22-50-01a21eac-cb05-71e1-9656-5740224a2604.jsonl')).toBe('rollout-<ts>-<id>.jsonl');
  });
});
