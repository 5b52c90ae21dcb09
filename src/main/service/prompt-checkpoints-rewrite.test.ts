import { appendFile, copyFile, mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import { qwen } from '../../engine/agents/qwen/adapter.js';
import { undoLatest } from '../../engine/journal/undo.js';
import { PromptCheckpoints } from './prompt-checkpoints.js';

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

/** A Qwen session recorded days ago, in a project that opted in to checkpoints. */
async function oldSession(): Promise<{ home: string; project: string; path: string }> {
  const home = await tempDir('rewind-pc-old-');
  const project = await tempDir('rewind-pc-old-project-');
  made.push(home, project);
  await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
  const text = await readFile(join(FIXTURES, 'qwen-real', 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl'), 'utf8');
  const path = join(home, 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl');
  await writeFile(path, text.split('"cwd":"/home/dev/projects/linear"').join(`"cwd":${JSON.stringify(project)}`));
  const old = new Date(Date.now() - 2 * 86_400_000);
  await utimes(path, old, old);
  return { home, project, path };
}

describe("the window's prompt checkpoints belong only to a prompt the agent started then", () => {
  it('a rewrite, an undo and a file copied into place take none; a prompt sent now takes one, under that prompt', async () => {
    const { home, project, path } = await oldSession();
    const taken: string[] = [];
    const cps = new PromptCheckpoints(async (_root, cursor) => taken.push(cursor.prompt_uuid!));
    await cps.changed(qwen, path);
    // Rewritten in place at the last prompt, then undone: the file is written now, its prompts are of another day.
    await qwen.rewind!({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project });
    await cps.changed(qwen, path);
    await undoLatest(project, { agentRoots: [home] });
    await cps.changed(qwen, path);
    // A copy of it put in place now: a file this watcher never saw, written a moment ago.
    const copy = join(path, '..', 'copied.jsonl');
    await copyFile(path, copy);
    await cps.changed(qwen, copy);
    expect(taken).toEqual([]);
    // The agent sends a prompt now.
    const t = await qwen.timeline(path);
    const last = (await readFile(path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { uuid: string }).pop()!;
    const fresh = { uuid: 'e2e00000-0000-4000-8000-000000000001', parentUuid: last.uuid, sessionId: t.session.id, timestamp: new Date().toISOString(), type: 'user', cwd: project, version: '0.24.4', message: { role: 'user', parts: [{ text: 'sent just now' }] } };
    await appendFile(path, `${JSON.stringify(fresh)}\n`);
    await cps.changed(qwen, path);
    expect(taken).toEqual([fresh.uuid]);
  });
});
