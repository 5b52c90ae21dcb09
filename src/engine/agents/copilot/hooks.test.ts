import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../../test/fixtures.js';
import { copilotHooks } from './hooks.js';

// Payloads Copilot CLI 1.0.102 sent to a hook installed in Claude's format (recorded offline, paths shortened).
const SID = '2866b63c-9dde-4f8a-a90f-d5b93e3b2078';
const PROMPT = { hook_event_name: 'UserPromptSubmit', session_id: SID, timestamp: '2026-11-27T20:37:08.806Z', cwd: '/p', prompt: 'WRITE x.txt hello' };
const PRE = { hook_event_name: 'PreToolUse', session_id: SID, timestamp: '2026-11-27T20:37:11.100Z', cwd: '/p', tool_name: 'Write', tool_input: { path: 'x.txt', file_text: 'hello\n' } };
const STOP = { hook_event_name: 'Stop', session_id: SID, cwd: '/p', transcript_path: `/h/.copilot/session-state/${SID}/events.jsonl`, stop_reason: 'end_turn', stop_hook_active: false };

describe("GitHub Copilot CLI's hooks", () => {
  it('reads its Claude-format payloads: a prompt with no id yet, the file a tool names, a shell as unknown, the stop', () => {
    expect(copilotHooks.read(PROMPT)).toEqual({ kind: 'prompt', promptUuid: null, promptId: null });
    expect(copilotHooks.read(PRE)).toEqual({ kind: 'tool', phase: 'pre', tool: 'Write', files: ['x.txt'], readOnly: false });
    expect(copilotHooks.read({ ...PRE, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'rm a' } })).toMatchObject({ phase: 'post', files: null });
    expect(copilotHooks.read({ ...PRE, tool_name: 'Read', tool_input: { path: 'x.txt' } })).toMatchObject({ readOnly: true });
    expect(copilotHooks.read(STOP)).toEqual({ kind: 'stop' });
  });

  it('fills in the session file it names only at Stop, from the session id and its home', () => {
    expect(copilotHooks.payload!(PROMPT, { HOME: '/h' }).transcript_path).toBe(join('/h', '.copilot', 'session-state', SID, 'events.jsonl'));
    expect(copilotHooks.payload!(PROMPT, { HOME: '/h', COPILOT_HOME: '/c' }).transcript_path).toBe(join('/c', 'session-state', SID, 'events.jsonl'));
    expect(copilotHooks.payload!(STOP, { HOME: '/x' }).transcript_path).toBe(STOP.transcript_path);
    // An id that is not one never becomes a path.
    expect(copilotHooks.payload!({ ...PROMPT, session_id: '../../etc' }, { HOME: '/h' }).transcript_path).toBeUndefined();
  });

  it('ties a prompt to the user.message written after the hook fired', async () => {
    const file = join(FIXTURES, 'copilot-1.0.102', 'home', '.copilot', 'session-state', '2c141a1f-92c1-4df3-af25-28014492b79e', 'events.jsonl');
    const { copilot } = await import('./adapter.js');
    const t = await copilot.timeline(file);
    expect(await copilotHooks.promptAfter!(file, t.prompts[1]!.byteOffset - 1)).toBe(t.prompts[1]!.uuid);
    expect(await copilotHooks.promptAfter!(file, t.prompts[3]!.byteOffset + 1)).toBeNull();
  });

  it('user scope is settings.json of its home, project scope a file of .github/hooks', () => {
    const place = { projectRoot: '/p', agentHome: '/h/.copilot' };
    expect(copilotHooks.configPath('user', place)).toBe(join('/h/.copilot', 'settings.json'));
    expect(copilotHooks.configPath('project', place)).toBe(join('/p', '.github', 'hooks', 'rewind.json'));
    expect(copilotHooks.disabledReason!('{"disableAllHooks": true}', 'user')).toMatch(/disableAllHooks/);
  });
});
