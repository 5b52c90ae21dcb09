import { appendFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir as makeTemp } from '../../../test/fixtures.js';
import { ADAPTERS } from '../agents/registry.js';
import { listCheckpoints } from '../store/manifest.js';
import { handleAgentHook } from './handle-hook.js';
import { installConfig, uninstallConfig, configStatus, installText, uninstallText } from './hook-config.js';

const made: string[] = [];
const tempDir = async (prefix: string) => {
  const d = await makeTemp(prefix);
  made.push(d);
  return d;
};
afterAll(() => Promise.all(made.map((d) => rm(d, { recursive: true, force: true }))));

const hooksOf = (id: keyof typeof ADAPTERS) => ADAPTERS[id].hooks!;
const CMD = "'/usr/bin/node' '/opt/rewind/out/cli/rewind-app.mjs' hook";

describe("each agent's payloads, as the hook reads them", () => {
  it('Codex: the prompt is named by turn_id; apply_patch names its files; Bash is a shell', () => {
    const h = hooksOf('codex');
    expect(h.read({ hook_event_name: 'UserPromptSubmit', turn_id: 't-1', prompt: 'p' })).toEqual({ kind: 'prompt', promptUuid: null, promptId: 't-1' });
    const patch = '*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: a.ts\n*** Move to: b.ts\n*** Delete File: c.ts\n*** End Patch';
    expect(h.read({ hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: { command: patch } })).toMatchObject({ kind: 'tool', files: ['src/new.ts', 'a.ts', 'b.ts', 'c.ts'] });
    expect(h.read({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm x' } })).toMatchObject({ kind: 'tool', files: null, readOnly: false });
    expect(h.read({ hook_event_name: 'Stop' })).toEqual({ kind: 'stop' });
  });
  it("Qwen: the repeated prompt event (prompt '') is a repeat, a real prompt opens a turn", () => {
    const h = hooksOf('qwen');
    expect(h.read({ hook_event_name: 'UserPromptSubmit', prompt: 'do it', submitted_prompt: 'do it', prompt_id: 's########0' })).toMatchObject({ kind: 'prompt', promptId: null });
    expect(h.read({ hook_event_name: 'UserPromptSubmit', prompt: '', prompt_id: 's########0' })).toEqual({ kind: 'repeat' });
    expect(h.read({ hook_event_name: 'PreToolUse', tool_name: 'write_file', tool_input: { file_path: '/p/a.txt' } })).toMatchObject({ files: ['/p/a.txt'] });
    expect(h.read({ hook_event_name: 'PreToolUse', tool_name: 'read_file', tool_input: { file_path: '/p/a.txt' } })).toMatchObject({ readOnly: true });
  });
  it('Droid: SessionStart opens the turn (exec fires no prompt event); Execute is a shell', () => {
    const h = hooksOf('droid');
    expect(h.read({ hook_event_name: 'SessionStart' })).toEqual({ kind: 'session', turn: true });
    expect(h.read({ hook_event_name: 'PreToolUse', tool_name: 'Create', tool_input: { file_path: 'a.txt' } })).toMatchObject({ files: ['a.txt'] });
    expect(h.read({ hook_event_name: 'PreToolUse', tool_name: 'Execute', tool_input: { command: 'rm a' } })).toMatchObject({ files: null });
  });
  it("Claude: the tool matcher, as Claude Code tests it (a regex), takes writers and MCP tools, not TodoWrite; an MCP tool is read as one with unknown paths", () => {
    const pre = hooksOf('claude').events.find((e) => e.event === 'PreToolUse')!;
    const m = new RegExp(pre.matcher!);
    for (const t of ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Bash', 'Task', 'Agent', 'mcp__fs__write_file']) expect(m.test(t), t).toBe(true);
    for (const t of ['TodoWrite', 'BashOutput', 'Read', 'mcp__', 'Glob']) expect(m.test(t), t).toBe(false);
    expect(hooksOf('claude').read({ hook_event_name: 'PreToolUse', tool_name: 'mcp__fs__write_file', tool_input: { path: '/p/a.txt', content: 'x' } })).toMatchObject({ kind: 'tool', files: null, readOnly: false });
  });
  it('Gemini: BeforeAgent opens a turn without a prompt id; AfterAgent ends it', () => {
    const h = hooksOf('gemini');
    expect(h.read({ hook_event_name: 'BeforeAgent', prompt: 'p' })).toEqual({ kind: 'prompt', promptUuid: null, promptId: null });
    expect(h.read({ hook_event_name: 'BeforeTool', tool_name: 'replace', tool_input: { file_path: 'a' } })).toMatchObject({ files: ['a'] });
    expect(h.read({ hook_event_name: 'AfterAgent' })).toEqual({ kind: 'stop' });
    expect(h.read({ hook_event_name: 'BeforeModel' })).toEqual({ kind: 'other' });
  });
});

describe("merging Rewind's entries into an agent's config", () => {
  const user = { theme: 'dark', hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-linter' }] }], Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }] } };
  for (const id of ['codex', 'droid', 'qwen', 'gemini', 'copilot'] as const) {
    it(`${id}: keeps existing keys, is idempotent, uninstall removes exactly Rewind's entries`, async () => {
      const h = hooksOf(id);
      const dir = await tempDir(`hooks-${id}-`);
      const file = join(dir, 'cfg.json');
      const original = h.wrapped ? user : user.hooks;
      await writeFile(file, JSON.stringify(original));
      const cmd = `${CMD} --agent ${id}`;
      const first = await installConfig(file, h, id, cmd);
      expect(first.changed).toBe(true);
      expect(first.backup).toBe(`${file}.rewind-backup`);
      expect(JSON.parse(await readFile(first.backup!, 'utf8'))).toEqual(original);
      const installed = JSON.parse(await readFile(file, 'utf8'));
      const events = h.wrapped ? installed.hooks : installed;
      if (h.wrapped) expect(installed.theme).toBe('dark');
      expect(events.PreToolUse[0]).toEqual(user.hooks.PreToolUse[0]);
      expect((await configStatus(file, h, id)).events.sort()).toEqual(h.events.map((e) => e.event).sort());
      expect((await configStatus(file, h, id)).current).toBe(true);
      const again = await installConfig(file, h, id, cmd);
      expect(again.changed).toBe(false);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(installed);
      // Another agent's entries are not ours.
      expect((await configStatus(file, h, id === 'qwen' ? 'gemini' : 'qwen')).events).toEqual([]);
      const un = await uninstallConfig(file, h, id);
      expect(un.changed).toBe(true);
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(original);
      expect((await uninstallConfig(file, h, id)).changed).toBe(false);
    });
  }
  it("entries an earlier Rewind wrote (Claude's matcher without MCP tools) are said, with the install that updates them", async () => {
    const h = hooksOf('claude');
    const dir = await tempDir('hooks-earlier-');
    const file = join(dir, 'settings.json');
    const old = 'Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task';
    const entry = (matcher?: string) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: `${CMD}`, timeout: 30 }] }];
    await writeFile(file, JSON.stringify({ hooks: { UserPromptSubmit: entry(), PreToolUse: entry(old), PostToolUse: entry(old), Stop: entry() } }));
    expect(await configStatus(file, h, 'claude')).toMatchObject({ current: false, events: ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'] });
    const again = await installConfig(file, h, 'claude', CMD);
    expect(again.changed).toBe(true);
    const now = JSON.parse(await readFile(file, 'utf8'));
    expect(now.hooks.PreToolUse).toEqual([{ matcher: h.events[1]!.matcher, hooks: [{ type: 'command', command: CMD, timeout: 30 }] }]);
    expect((await configStatus(file, h, 'claude')).current).toBe(true);
  });
  it('an installed entry for the same agent is replaced, not doubled; a config of only ours goes back to none', () => {
    const h = hooksOf('gemini');
    const once = installText(null, h, 'gemini', `${CMD} --agent gemini`);
    const twice = JSON.parse(installText(once, h, 'gemini', `'/new/node' '/new/rewind-app.mjs' hook --agent gemini`)) as { hooks: Record<string, unknown[]> };
    expect(Object.values(twice.hooks).every((g) => g.length === 1)).toBe(true);
    expect(JSON.parse(uninstallText(JSON.stringify(twice), h, 'gemini'))).toEqual({});
  });
  it('refuses a config that is not JSON, and writes nothing', async () => {
    const dir = await tempDir('hooks-bad-');
    const file = join(dir, 'settings.json');
    await writeFile(file, '{ broken');
    await expect(installConfig(file, hooksOf('qwen'), 'qwen', CMD)).rejects.toThrow(/not valid JSON/);
    expect(await readFile(file, 'utf8')).toBe('{ broken');
  });
});

describe('the hook ties its checkpoint to the prompt id the timeline shows', () => {
  it('Qwen: a checkpoint at the prompt event, tied to the prompt once written; the repeated event adds nothing', async () => {
    const base = await tempDir('hook-qwen-');
    const project = join(base, 'proj');
    await mkdir(project);
    await writeFile(join(project, 'a.txt'), 'v0\n');
    const transcript = join(base, 's.jsonl');
    const env = {};
    const p = { session_id: 's', transcript_path: transcript, cwd: project };
    const line = (o: object) => appendFile(transcript, `${JSON.stringify({ sessionId: 's', cwd: project, timestamp: new Date().toISOString(), ...o })}\n`);
    await handleAgentHook('qwen', { ...p, hook_event_name: 'UserPromptSubmit', prompt: 'one', submitted_prompt: 'one', prompt_id: 's########0' }, env);
    await line({ uuid: 'u1', parentUuid: null, type: 'user', message: { role: 'user', parts: [{ text: 'one' }] } });
    await handleAgentHook('qwen', { ...p, hook_event_name: 'PreToolUse', tool_name: 'run_shell_command', tool_input: { command: 'rm a.txt' } }, env);
    await handleAgentHook('qwen', { ...p, hook_event_name: 'UserPromptSubmit', prompt: '', prompt_id: 's########0' }, env);
    const list = await listCheckpoints(project);
    expect(list.map((c) => [c.trigger, c.transcript?.prompt_uuid])).toEqual([['prompt', 'u1']]);
    expect(await readdir(join(project, '.agent', 'rewind'))).toContain('hook-qwen.json');
  });
  it('Droid exec: SessionStart opens the turn, a chat-only turn is tied at Stop', async () => {
    const base = await tempDir('hook-droid-');
    const project = join(base, 'proj');
    await mkdir(project);
    const transcript = join(base, 's.jsonl');
    const p = { session_id: 's', transcript_path: transcript, cwd: project };
    await writeFile(transcript, `${JSON.stringify({ type: 'session_start', id: 's', cwd: project })}\n`);
    await handleAgentHook('droid', { ...p, hook_event_name: 'SessionStart' }, {});
    await appendFile(transcript, `${JSON.stringify({ type: 'message', id: 'm1', parentId: null, message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } })}\n`);
    await handleAgentHook('droid', { ...p, hook_event_name: 'Stop' }, {});
    // The prompt's checkpoint, tied; then the turn's end (every turn ends in one: a revert's boundary).
    expect((await listCheckpoints(project)).map((c) => [c.trigger, c.transcript?.prompt_uuid])).toEqual([
      ['prompt', 'm1'],
      ['turn-end', null],
    ]);
  });
  it('a home folder is no project: the hook leaves it alone', async () => {
    const home = await tempDir('hook-home-');
    expect(await handleAgentHook('gemini', { hook_event_name: 'BeforeAgent', session_id: 's', transcript_path: join(home, 's.jsonl'), cwd: home, prompt: 'p' }, { HOME: home })).toMatch(/not a project folder/);
    expect(await readdir(home)).toEqual([]);
  });
});
