import { appendFile, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/fixtures.js';
import { captureCli } from '../../test/cli-capture.js';

const cli = (argv: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; stdin?: string } = {}) => captureCli(argv, { stdin: '', installed: true, ...opts });

/** A fake agent session: writes transcript lines the way Claude Code does and calls our hook. */
async function agentSession() {
  const base = await tempDir('rewind-hooks-');
  const project = join(base, 'proj');
  const claude = join(base, '.claude');
  await mkdir(project, { recursive: true });
  const dir = join(claude, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'));
  await mkdir(dir, { recursive: true });
  const sessionId = '11111111-2222-4333-8444-555555555555';
  const transcript = join(dir, `${sessionId}.jsonl`);
  await writeFile(join(project, 'a.txt'), 'v0\n');
  await writeFile(transcript, '');
  let parent: string | null = null;
  let n = 0;
  const env = { CLAUDE_CONFIG_DIR: claude, CLAUDE_PROJECT_DIR: project };
  const hook = (payload: object) => cli(['hook'], { env, stdin: JSON.stringify({ session_id: sessionId, transcript_path: transcript, cwd: project, ...payload }) });
  const line = (o: object) => appendFile(transcript, `${JSON.stringify({ sessionId, cwd: project, isSidechain: false, version: '2.1.330', timestamp: new Date().toISOString(), ...o })}\n`);
  /** One prompt: the hook checkpoints first, then the agent acts. */
  const prompt = async (text: string, act: () => Promise<{ tool: string; path?: string } | null>) => {
    n++;
    const promptId = `pid-${n}`;
    expect((await hook({ hook_event_name: 'UserPromptSubmit', prompt_id: promptId, prompt: text })).code).toBe(0);
    const u = `u-${n}-0000-4000-8000-000000000000`;
    await line({ type: 'user', uuid: u, parentUuid: parent, promptId, message: { role: 'user', content: text } });
    const a = `a-${n}-0000-4000-8000-000000000000`;
    const planned = await act();
    if (planned) {
      const input = planned.path ? { file_path: planned.path } : { command: 'echo' };
      await hook({ hook_event_name: 'PreToolUse', tool_name: planned.tool, tool_input: input });
      await hook({ hook_event_name: 'PostToolUse', tool_name: planned.tool, tool_input: input });
    }
    await line({ type: 'assistant', uuid: a, parentUuid: u, message: { id: `m${n}`, role: 'assistant', content: [{ type: 'text', text: 'done' }] } });
    parent = a;
  };
  return { project, claude, transcript, env, prompt };
}

describe('hooks, checkpoints and back --both', () => {
  it('restores the code exactly as it was before the prompt, Bash-made files included, and undoes', async () => {
    const s = await agentSession();
    await s.prompt('write a', async () => {
      await writeFile(join(s.project, 'a.txt'), 'v1\n');
      return { tool: 'Write', path: 'a.txt' };
    });
    await s.prompt('bash makes c', async () => {
      await writeFile(join(s.project, 'c.txt'), 'bashmade\n');
      return { tool: 'Bash' };
    });
    await s.prompt('write a again', async () => {
      await writeFile(join(s.project, 'a.txt'), 'v2\n');
      return { tool: 'Write', path: join(s.project, 'a.txt') };
    });
    const list = await cli(['checkpoints', '--json', '--project', s.project]);
    const cps = JSON.parse(list.out).checkpoints;
    expect(cps.map((c: { trigger: string; scan: string }) => `${c.trigger}/${c.scan}`)).toEqual(['prompt/full', 'prompt/full', 'prompt/full']);
    expect(cps[1].changed.modified).toEqual(['a.txt']);

    // Go back 2 prompts: the chat forks before "bash makes c", the code is as it was then.
    const r = await cli(['back', '2', '--both', '--json', '--transcript', s.transcript, '--project', s.project], { env: s.env });
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.prompts.map((p: { text: string }) => p.text)).toEqual(['bash makes c', 'write a again']);
    expect(doc.checkpoint).toMatchObject({ source: 'rewind', checkpointId: cps[1].id });
    expect(await readFile(join(s.project, 'a.txt'), 'utf8')).toBe('v1\n');
    await expect(stat(join(s.project, 'c.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    // One action, one undo: the code and the fork go back together.
    const u = await cli(['undo', '--project', s.project], { env: s.env });
    expect(u.out).toMatch(/Undid the restore/);
    expect(u.out).toMatch(/Removed fork/);
    expect(await readFile(join(s.project, 'a.txt'), 'utf8')).toBe('v2\n');
    expect(await readFile(join(s.project, 'c.txt'), 'utf8')).toBe('bashmade\n');
    await expect(stat(doc.forkPath)).rejects.toMatchObject({ code: 'ENOENT' });
    const again = await cli(['undo', '--project', s.project], { env: s.env });
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/nothing to undo/);
  });

  it('a hand edit since the last checkpoint is a conflict: nothing is written without --force', async () => {
    const s = await agentSession();
    await s.prompt('write a', async () => {
      await writeFile(join(s.project, 'a.txt'), 'v1\n');
      return { tool: 'Write', path: 'a.txt' };
    });
    await s.prompt('write a again', async () => {
      await writeFile(join(s.project, 'a.txt'), 'v2\n');
      return { tool: 'Edit', path: 'a.txt' };
    });
    await writeFile(join(s.project, 'a.txt'), 'edited by hand\n');
    const before = await readdir(join(s.transcript, '..'));
    const r = await cli(['back', '1', '--both', '--transcript', s.transcript, '--project', s.project], { env: s.env });
    expect(r.code).toBe(6);
    expect(r.err).toMatch(/a\.txt/);
    expect(await readdir(join(s.transcript, '..'))).toEqual(before);
    expect(await readFile(join(s.project, 'a.txt'), 'utf8')).toBe('edited by hand\n');
    const dry = await cli(['restore', '@1', '--dry-run', '--project', s.project]);
    expect(dry.out).toMatch(/M a\.txt {3}! changed after the last checkpoint/);
    expect(dry.out).toContain('-edited by hand');
    const forced = await cli(['back', '1', '--both', '--force', '--transcript', s.transcript, '--project', s.project], { env: s.env });
    expect(forced.code).toBe(0);
    expect(await readFile(join(s.project, 'a.txt'), 'utf8')).toBe('v1\n');
  });

  it('a hook that fails still exits 0 and says why in hook.log', async () => {
    const s = await agentSession();
    const bad = await cli(['hook'], { env: s.env, stdin: '{not json' });
    expect(bad.code).toBe(0);
    expect(bad.out).toBe('');
    expect(await readFile(join(s.project, '.agent', 'rewind', 'hook.log'), 'utf8')).toMatch(/hook failed/);
  });
});

describe('hooks install', () => {
  it('is idempotent, keeps the rest of the settings file, and uninstalls cleanly', async () => {
    const project = await tempDir();
    await mkdir(join(project, '.claude'));
    const file = join(project, '.claude', 'settings.local.json');
    const other = { permissions: { allow: ['Bash(npm test)'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } };
    await writeFile(file, JSON.stringify(other));
    const first = await cli(['hooks', 'install', '--project', project]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/added UserPromptSubmit/);
    const installed = JSON.parse(await readFile(file, 'utf8'));
    expect(installed.permissions).toEqual(other.permissions);
    // The user's own Stop hook stays first; Rewind's (the turn-end checkpoint) comes after it.
    expect(installed.hooks.Stop[0]).toEqual(other.hooks.Stop[0]);
    expect(installed.hooks.Stop[1].hooks[0].command).toBe("'/usr/bin/node' '/opt/rewind/out/cli/rewind-app.mjs' hook");
    expect(installed.hooks.UserPromptSubmit[0].hooks[0].command).toBe("'/usr/bin/node' '/opt/rewind/out/cli/rewind-app.mjs' hook");
    expect(installed.hooks.PreToolUse[0].matcher).toContain('Bash');
    const again = await cli(['hooks', 'install', '--project', project]);
    expect(again.out).toMatch(/already installed/);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(installed);
    const status = JSON.parse((await cli(['hooks', 'status', '--json', '--project', project])).out);
    expect(status.scopes.find((x: { scope: string }) => x.scope === 'local').events).toEqual(['Stop', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse']);
    await cli(['hooks', 'uninstall', '--project', project]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(other);
  });

  it('refuses to touch a settings file that is not valid JSON', async () => {
    const project = await tempDir();
    await mkdir(join(project, '.claude'));
    await writeFile(join(project, '.claude', 'settings.local.json'), '{ broken');
    const r = await cli(['hooks', 'install', '--project', project]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/not valid JSON/);
    expect(await readFile(join(project, '.claude', 'settings.local.json'), 'utf8')).toBe('{ broken');
  });
});

describe('hooks and mcp install on a hostile or busy config (issue #34)', () => {
  it('two CLI installs at once on one settings.json (hooks, then MCP) both land; a shipped backup link is refused in one line', async () => {
    for (let trial = 0; trial < 4; trial++) {
      const base = await tempDir('rewind-hooks-race-');
      const project = join(base, 'proj');
      await mkdir(join(project, '.qwen'), { recursive: true });
      const config = join(project, '.qwen', 'settings.json');
      await writeFile(config, '{\n  "model": { "name": "q" }\n}\n');
      const env = { HOME: base };
      const [a, b] = await Promise.all([
        cli(['hooks', 'install', '--agent', 'qwen', '--scope', 'project', '--project', project], { env }),
        cli(['mcp', 'install', '--agent', 'qwen', '--scope', 'project', '--project', project], { env }),
      ]);
      expect([a.code, b.code]).toEqual([0, 0]);
      const v = JSON.parse(await readFile(config, 'utf8')) as { hooks?: object; mcpServers?: object };
      expect(Object.keys(v.hooks ?? {}).length).toBeGreaterThan(0);
      expect(Object.keys(v.mcpServers ?? {})).toEqual(['rewind']);
    }
    const base = await tempDir('rewind-hooks-link-');
    const project = join(base, 'proj');
    await mkdir(join(project, '.qwen'), { recursive: true });
    await writeFile(join(project, '.qwen', 'settings.json'), '{}\n');
    await writeFile(join(base, '.bashrc'), 'alias ll=ls\n');
    const { symlink } = await import('node:fs/promises');
    await symlink(join(base, '.bashrc'), join(project, '.qwen', 'settings.json.rewind-backup'));
    const r = await cli(['hooks', 'install', '--agent', 'qwen', '--scope', 'project', '--project', project], { env: { HOME: base } });
    expect(r.code).not.toBe(0);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/is a link/);
    expect(await readFile(join(base, '.bashrc'), 'utf8')).toBe('alias ll=ls\n');
    expect(await readFile(join(project, '.qwen', 'settings.json'), 'utf8')).toBe('{}\n');
  });
});
