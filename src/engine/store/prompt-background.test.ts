import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { run } from '../../cli/main.js';
import { handleAgentHook } from '../hooks/handle-hook.js';
import { readBackground, waitForPromptCheckpoint } from './background-checkpoint.js';
import { objectStore } from './checkpoint.js';
import { listCheckpoints, readManifest } from './manifest.js';
import { resolveRestoreTarget } from './restore.js';

const BACKGROUND_TS = resolve(import.meta.dirname, 'background-checkpoint.ts');

/**
 * The detached child as the built CLI runs it (`REWIND_BG_CHECKPOINT` set: runBackground with its
 * own pid), from source through tsx; `delayMs` first (a loaded machine), or `crash`: it dies at once.
 */
async function childArgs(dir: string, how: { delayMs?: number; crash?: boolean }): Promise<string[]> {
  const shim = join(dir, `child-${how.crash ? 'crash' : (how.delayMs ?? 0)}.mjs`);
  const tsxApi = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const body = how.crash
    ? 'process.exit(3);\n'
    : `import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait new Promise((r) => setTimeout(r, ${how.delayMs ?? 0}));\nconst { runBackground } = await import(${JSON.stringify(pathToFileURL(BACKGROUND_TS).href)});\nawait runBackground(process.env.REWIND_BG_CHECKPOINT, process.pid);\n`;
  await writeFile(shim, body);
  return [shim];
}

async function setup() {
  const project = await tempDir('rewind-pbg-');
  const side = await tempDir('rewind-pbg-side-');
  await writeFile(join(project, 'a.txt'), 'a0\n');
  const transcript = join(side, 's1.jsonl');
  await writeFile(transcript, '{}\n');
  const hook = (p: Record<string, unknown>, child: string[] | null) => handleAgentHook('claude', { session_id: 's1', cwd: project, transcript_path: transcript, ...p }, { CLAUDE_PROJECT_DIR: project }, child);
  // The project's first checkpoint, inline: what follows is an ordinary prompt's.
  await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p0' }, null);
  const content = async (id: string, path: string) => {
    const e = (await readManifest(project, id)).entries.find((x) => x[0] === path);
    return e ? (await objectStore(project).read(e[2])).toString() : null;
  };
  return { project, side, hook, content };
}

const idOf = (said: string) => /checkpoint (\S+)/.exec(said)![1]!;

describe("a prompt's checkpoint is taken in the background, and the tools wait for it", () => {
  it('two prompts in a row queue in order; the first tool hook waits for both; the agent write is in neither, the turn-end after them has it', async () => {
    const { project, side, hook, content } = await setup();
    const slow = await childArgs(side, { delayMs: 400 });
    // The user's hand edit between prompts is in the prompt's checkpoint.
    await writeFile(join(project, 'a.txt'), 'by hand\n');
    const began = performance.now();
    const p1 = idOf(await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p1' }, slow));
    const p2 = idOf(await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p2' }, slow));
    // Both returned before the child even started its walk.
    expect(performance.now() - began).toBeLessThan(400);
    const bg = await readBackground(project);
    expect(bg?.kind).toBe('prompt');
    expect(bg?.jobs.map((j) => j.id)).toEqual([p1, p2]);
    let out = '';
    await run(['checkpoints', '--project', project, '--json'], { out: (s: string) => (out += s), err: () => undefined, env: { HOME: '/nonexistent-home' }, cwd: project });
    expect((JSON.parse(out) as { inProgress: string }).inProgress).toMatch(/^checkpoint before a prompt in progress .*2 queued/);
    // A restore to that prompt meanwhile refuses, saying why (as for a first checkpoint).
    await expect(resolveRestoreTarget({ projectRoot: project, ref: 'p1', session: { transcriptPath: '/x', agent: 'claude', prompts: [{ uuid: 'p1', promptId: 'p1', active: true }] } })).rejects.toThrow(/may not be complete yet.*checkpoint before a prompt in progress/);
    const said = await hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'a.txt') } }, slow);
    expect(said).toMatch(/^waited \d+ ms for the prompt's checkpoint/);
    expect(await readBackground(project)).toBeNull();
    await writeFile(join(project, 'a.txt'), 'by the agent\n');
    await hook({ hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'a.txt') } }, slow);
    const end = /turn-end checkpoint (\S+)/.exec(await hook({ hook_event_name: 'Stop' }, slow))![1]!;
    const list = await listCheckpoints(project);
    expect(list.map((c) => [c.id, c.trigger, c.transcript?.prompt_id ?? null]).slice(1)).toEqual([
      [p1, 'prompt', 'p1'],
      [p2, 'prompt', 'p2'],
      [end, 'turn-end', null],
    ]);
    expect(await content(p1, 'a.txt')).toBe('by hand\n');
    expect(await content(p2, 'a.txt')).toBe('by hand\n');
    expect(await content(end, 'a.txt')).toBe('by the agent\n');
    expect((await readManifest(project, p1)).background?.note).toBeUndefined();
  });

  it("two agents in one project: another agent's tool waits for this one's prompt checkpoint", async () => {
    const { project, side, hook, content } = await setup();
    const slow = await childArgs(side, { delayMs: 400 });
    const p1 = idOf(await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p1' }, slow));
    const codex = { session_id: 'c1', cwd: project, transcript_path: join(side, 'c1.jsonl'), hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: { command: '*** Begin Patch\n*** Update File: a.txt\n*** End Patch' } };
    expect(await handleAgentHook('codex', codex, {}, slow)).toMatch(/^waited \d+ ms/);
    await writeFile(join(project, 'a.txt'), 'by codex\n');
    expect(await content(p1, 'a.txt')).toBe('a0\n');
  });

  it('a child that died: the tool hook does not hang, the next prompt starts a new child', async () => {
    const { project, side, hook, content } = await setup();
    const crash = await childArgs(side, { crash: true });
    const p1 = idOf(await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p1' }, crash));
    const began = performance.now();
    // Until the child is gone it is waited for; once it is, the hook goes on.
    const said = await hook({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(project, 'a.txt') } }, crash);
    expect(said).toMatch(/^stopped waiting \d+ ms/);
    expect(performance.now() - began).toBeLessThan(15_000);
    // That prompt has no checkpoint (none is made up); the turn-end is taken in the hook and clears the dead queue.
    expect(await hook({ hook_event_name: 'Stop' }, crash)).toMatch(/^stopped waiting .*turn-end checkpoint/);
    expect(await readBackground(project)).toBeNull();
    expect((await listCheckpoints(project)).map((c) => c.id)).not.toContain(p1);
    // The next one is taken by a child that works.
    await writeFile(join(project, 'a.txt'), 'later\n');
    const ok = await childArgs(side, { delayMs: 0 });
    const p2 = idOf(await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p2' }, ok));
    expect(await hook({ hook_event_name: 'Stop' }, ok)).toMatch(/^waited/);
    expect(await content(p2, 'a.txt')).toBe('later\n');
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('later\n');
  });

  it('the wait is bounded: a child that never finishes is given up on at the limit', async () => {
    const { project, hook } = await setup();
    const stuck = ['-e', 'setTimeout(() => {}, 60000)'];
    await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: 'p1' }, stuck);
    const bg = (await readBackground(project))!;
    try {
      const began = performance.now();
      expect(await waitForPromptCheckpoint(project, 300)).toBe(false);
      const took = performance.now() - began;
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(5_000);
    } finally {
      process.kill(bg.pid);
    }
  });
});
