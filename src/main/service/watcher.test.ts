import { appendFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { ADAPTERS } from '../../engine/agents/registry.js';
import { Watcher } from './watcher.js';

describe('watcher', () => {
  let w: Watcher | null = null;
  afterEach(async () => {
    await w?.close();
  });

  it('sees folders that appear after it started: Claude projects, a project store, Codex sessions', async () => {
    const base = await tempDir('rewind-watch-');
    const claude = join(base, '.claude');
    await mkdir(claude);
    const seen = { transcripts: [] as string[], sessions: 0, stores: [] as string[] };
    w = new Watcher({
      onTranscript: (p) => seen.transcripts.push(p),
      onSessions: () => seen.sessions++,
      onStore: (r) => seen.stores.push(r),
    });
    const project = join(base, 'project');
    await mkdir(project);
    await w.watchSessions('claude', ADAPTERS.claude.watch(claude));
    await w.watchSessions('codex', ADAPTERS.codex.watch(join(base, '.codex')));
    await w.watchStore(project);
    // Claude Code's first session on this machine: projects/ does not exist until now.
    const transcript = join(claude, 'projects', '-project', 'a.jsonl');
    await mkdir(join(transcript, '..'), { recursive: true });
    await writeFile(transcript, '{}\n');
    await mkdir(join(claude, 'projects', '-project', 'a', 'subagents'), { recursive: true });
    const rollout = join(base, '.codex', 'sessions', '2026', '01', '02', 'rollout-x.jsonl');
    await mkdir(join(rollout, '..'), { recursive: true });
    await writeFile(rollout, '{}\n');
    await mkdir(join(project, '.agent', 'rewind', 'checkpoints'), { recursive: true });
    await writeFile(join(project, '.agent', 'rewind', 'checkpoints', 'index.jsonl'), '{}\n');
    await writeFile(join(project, 'unrelated.txt'), 'x');
    await vi.waitFor(
      () => {
        expect(seen.transcripts).toContain(transcript);
        expect(seen.sessions).toBeGreaterThan(0);
        expect(seen.transcripts).toContain(rollout);
        expect(seen.stores).toContain(project);
      },
      { timeout: 5000, interval: 20 },
    );
    // Growth is followed too; nothing outside the watched paths is reported.
    seen.transcripts.length = 0;
    await appendFile(transcript, '{}\n');
    await vi.waitFor(() => expect(seen.transcripts).toEqual([transcript]), { timeout: 5000, interval: 20 });
    expect(seen.transcripts.every((p) => p.endsWith('.jsonl'))).toBe(true);
  });

  it('sees the last of several appends milliseconds apart (chokidar drops a change within 50 ms of the previous one)', async () => {
    const claude = join(await tempDir('rewind-watch-'), '.claude');
    const transcript = join(claude, 'projects', '-p', 'a.jsonl');
    await mkdir(join(transcript, '..'), { recursive: true });
    await writeFile(transcript, '{}\n');
    const sizes: number[] = [];
    w = new Watcher({ onTranscript: (p) => void stat(p).then((st) => sizes.push(st.size)), onSessions: () => undefined, onStore: () => undefined });
    await w.watchSessions('claude', ADAPTERS.claude.watch(claude));
    for (let round = 0; round < 5; round++) {
      await appendFile(transcript, '{"a":1}\n');
      await vi.waitFor(() => expect(sizes.length).toBeGreaterThan(0), { timeout: 5000, interval: 5 });
      // An agent's next lines, a few milliseconds after the one just seen.
      await new Promise((r) => setTimeout(r, 3));
      await appendFile(transcript, '{"b":2}\n');
      await new Promise((r) => setTimeout(r, 3));
      await appendFile(transcript, '{"c":3}\n');
      const size = (await stat(transcript)).size;
      await vi.waitFor(() => expect(sizes.at(-1)).toBe(size), { timeout: 2000, interval: 10 });
      sizes.length = 0;
    }
  });
});
