import { describe, expect, it } from 'vitest';
import type { TimelinePrompt } from '../../shared/session-schema.js';
import { checkpointTitle } from '../../shared/wording.js';
import { promptMarkers } from './checkpoint-markers.js';
import type { CheckpointSummary } from './manifest.js';

const PATH = '/s/a.jsonl';
const cp = (id: string, time: string, uuid: string): CheckpointSummary => ({ id, time, label: null, trigger: 'prompt', scan: 'full', transcript: { transcript_path: PATH, session_id: 's', agent: 'qwen', prompt_uuid: uuid, prompt_id: null, byte_offset_end: 1, prefix_sha256: '' }, files: 1, bytes: 1, changed: { added: [], modified: [], deleted: [] }, skipped: 0 });
const prompt = (uuid: string, timestamp: string | null) => ({ uuid, promptId: null, timestamp, checkpoint: null }) as unknown as TimelinePrompt;

describe('a checkpoint is "before this prompt" only by the prompt\'s own time', () => {
  it('taken at the prompt: before it; taken two days later: marked later, and a checkpoint before it wins', () => {
    const at = '2026-11-23T11:36:29.000Z';
    const mark = promptMarkers([cp('c1', '2026-11-23T11:36:30.000Z', 'p1'), cp('late', '2026-11-25T19:00:00.000Z', 'p2'), cp('late2', '2026-11-25T19:00:00.000Z', 'p1')], PATH);
    expect(mark(prompt('p1', at)).checkpoint).toEqual({ id: 'c1', scan: 'full', time: '2026-11-23T11:36:30.000Z' });
    const late = mark(prompt('p2', at)).checkpoint!;
    expect(late).toMatchObject({ id: 'late', later: true });
    expect(checkpointTitle(late, 'Nov 25, 19:00')).toBe('Rewind checkpoint late, taken later: the project as it was at Nov 25, 19:00, not before this prompt');
    expect(checkpointTitle(mark(prompt('p1', at)).checkpoint!, 'Nov 23, 11:36')).toContain('taken Nov 23, 11:36: the whole project before this prompt');
    // A prompt without a time of its own: the checkpoint is taken at its word.
    expect(mark(prompt('p2', null)).checkpoint).toEqual({ id: 'late', scan: 'full', time: '2026-11-25T19:00:00.000Z' });
  });
});

describe('restore never takes a checkpoint taken long after its prompt as the code before it', () => {
  it('checkpointForPrompt passes over one taken two days after the prompt, and takes one taken at it', async () => {
    const { writeFile, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tempDir } = await import('../../../test/fixtures.js');
    const { takeCheckpoint } = await import('./checkpoint.js');
    const { checkpointForPrompt } = await import('./restore.js');
    const project = await tempDir('rewind-late-cp-');
    try {
      await writeFile(join(project, 'a.txt'), 'today\n');
      const taken = Date.parse('2026-11-25T19:00:00.000Z');
      const cursor = { transcript_path: PATH, session_id: 's', agent: 'qwen', prompt_uuid: 'p1', prompt_id: null, byte_offset_end: 1, prefix_sha256: '' };
      const cp = await takeCheckpoint({ projectRoot: project, trigger: 'prompt', transcript: cursor, now: () => taken });
      const session = (timestamp: string) => ({ transcriptPath: PATH, agent: 'qwen', prompts: [{ uuid: 'p1', promptId: null, active: true, timestamp }] });
      expect(await checkpointForPrompt(project, 'p1', session('2026-11-23T11:36:29.000Z'))).toBeNull();
      expect((await checkpointForPrompt(project, 'p1', session('2026-11-25T18:59:58.000Z')))?.id).toBe(cp.manifest.id);
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });
});
