import { mkdir, readdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agentStatus, installAgentHooks, uninstallAgentHooks } from '../hooks/agents-hooks.js';
import { hooksOfAgent } from './hooks-index.js';
import { tempDir } from '../../../test/temp.js';

type Hook = (input: unknown, output?: unknown) => Promise<void>;

describe.each(['opencode', 'kilo'] as const)('%s hooks: Rewind’s plugin', (agent) => {
  it('installs the plugin (user and project), reports it, refuses a link, removes it; its hooks send Claude-style payloads', async () => {
    const dir = await tempDir(`${agent}-plugin-`);
    const project = join(dir, 'project');
    await mkdir(project);
    const env = { HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') };
    const out = join(dir, 'payloads.jsonl');
    // The hook command: appends each payload to a file (stands for `rewind-app hook --agent <id>`).
    const sink = join(dir, 'sink.mjs');
    await writeFile(sink, `import { appendFileSync, readFileSync } from 'node:fs'; appendFileSync(${JSON.stringify(out)}, readFileSync(0, 'utf8') + '\\n');`);
    const w = { projectRoot: project, env };
    const r = await installAgentHooks(agent, { ...w, scope: null, command: `node ${sink}` });
    expect(r.file).toBe(join(dir, 'config', agent, 'plugins', 'rewind.js'));
    expect(r.changed).toBe(true);
    expect((await installAgentHooks(agent, { ...w, scope: null, command: `node ${sink}` })).changed).toBe(false);
    const st = await agentStatus(agent, w);
    expect(st.installed).toBe(true);
    expect(st.scopes.find((s) => s.scope === 'user')?.events).toContain('chat.message');
    expect(st.nextStep).toBeNull();
    // An earlier Rewind's plugin (another text, same command) is said, with the install that updates it.
    const text = await readFile(r.file, 'utf8');
    await writeFile(r.file, `${text}// an earlier version\n`);
    expect((await agentStatus(agent, w)).nextStep).toMatch(/from an earlier version: install them again \(rewind-app hooks install --agent \w+ --scope user\)/);
    expect((await installAgentHooks(agent, { ...w, scope: null, command: `node ${sink}` })).changed).toBe(true);
    expect(await readFile(r.file, 'utf8')).toBe(text);

    // The plugin as the agent loads it: one exported function returning the hooks.
    const mod = (await import(pathToFileURL(r.file).href)) as Record<string, (ctx: unknown) => Promise<Record<string, Hook>>>;
    expect(Object.keys(mod)).toEqual(['RewindCheckpoints']);
    const hooks = await mod.RewindCheckpoints!({ directory: project });
    await hooks['chat.message']!({ sessionID: 'ses_abc123' }, { message: { id: 'msg_1' }, parts: [{ type: 'text', text: 'WRITE a.txt' }] });
    await hooks['tool.execute.before']!({ tool: 'write', sessionID: 'ses_abc123', callID: 'c1' }, { args: { filePath: join(project, 'a.txt'), content: 'x' } });
    await hooks['tool.execute.after']!({ tool: 'write', sessionID: 'ses_abc123', callID: 'c1' }, { output: '' });
    await hooks.event!({ event: { type: 'session.idle', properties: { sessionID: 'ses_abc123' } } });
    const sent = (await readFile(out, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(sent.map((p) => p.hook_event_name)).toEqual(['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']);
    const h = (await hooksOfAgent(agent))!;
    const events = sent.map((p) => h.read(h.payload!(p, env)));
    expect(events[0]).toEqual({ kind: 'prompt', promptUuid: 'msg_1', promptId: null });
    expect(events[1]).toMatchObject({ kind: 'tool', phase: 'pre', files: [join(project, 'a.txt')] });
    expect(events[2]).toMatchObject({ kind: 'tool', phase: 'post', files: [join(project, 'a.txt')] });
    expect(events[3]).toEqual({ kind: 'stop' });
    expect(h.payload!(sent[0]!, env).transcript_path).toBe(`${join(dir, 'data', agent, `${agent}.db`)}#ses_abc123`);

    // Project scope: `.<agent>/plugins/rewind.js`; a link in the plugin's place is refused, nothing written.
    const pfile = join(project, `.${agent}`, 'plugins', 'rewind.js');
    await mkdir(join(project, `.${agent}`, 'plugins'), { recursive: true });
    await symlink(join(dir, 'elsewhere.js'), pfile);
    await expect(installAgentHooks(agent, { ...w, scope: 'project', command: 'rewind-app hook' })).rejects.toThrow(/link/);
    // A user's own file of that name is never overwritten.
    const own = join(dir, 'config', agent, 'plugins', 'rewind.js');
    expect((await uninstallAgentHooks(agent, { ...w, scope: null })).changed).toBe(true);
    expect((await agentStatus(agent, w)).installed).toBe(false);
    await writeFile(own, 'export const Mine = async () => ({});\n');
    await expect(installAgentHooks(agent, { ...w, scope: null, command: 'rewind-app hook' })).rejects.toThrow(/not Rewind's plugin/);
    expect((await uninstallAgentHooks(agent, { ...w, scope: null })).changed).toBe(false);
    expect(await readFile(own, 'utf8')).toContain('Mine');
  });

  it('through the one config editor: a link to a user file is refused (never followed), concurrent installs leave one whole plugin, an update and an uninstall leave nothing behind', async () => {
    const dir = await tempDir(`${agent}-plugin-edit-`);
    const project = join(dir, 'project');
    await mkdir(project);
    const env = { HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') };
    const w = { projectRoot: project, env };
    const plugins = join(dir, 'config', agent, 'plugins');
    const file = join(plugins, 'rewind.js');
    // A link to a regular file of the user's: refused, the file it points at untouched.
    await mkdir(plugins, { recursive: true });
    const mine = join(dir, 'mine.js');
    await writeFile(mine, 'export const Mine = async () => ({});\n');
    await symlink(mine, file);
    await expect(installAgentHooks(agent, { ...w, scope: null, command: 'rewind-app hook' })).rejects.toThrow(/link/);
    await expect(uninstallAgentHooks(agent, { ...w, scope: null })).rejects.toThrow(/link/);
    expect(await readFile(mine, 'utf8')).toContain('Mine');
    await unlink(file);
    // Five installers at once: each waits its turn on the file's lock; one whole plugin is left, no temp files.
    const commands = [1, 2, 3, 4, 5].map((i) => `rewind-app-${i} hook`);
    const done = await Promise.all(commands.map((command) => installAgentHooks(agent, { ...w, scope: null, command })));
    expect(done.every((r) => r.file === file)).toBe(true);
    const { pluginCommand } = await import('./store-hooks.js');
    expect(commands.map((c) => `${c} --agent ${agent}`)).toContain(pluginCommand(await readFile(file, 'utf8')));
    expect(await readdir(plugins)).toEqual(['rewind.js']);
    // An update keeps no backup of Rewind's own text; the uninstall leaves the folder empty.
    expect((await installAgentHooks(agent, { ...w, scope: null, command: 'rewind-app hook' })).changed).toBe(true);
    expect(await readdir(plugins)).toEqual(['rewind.js']);
    const u = await uninstallAgentHooks(agent, { ...w, scope: null });
    expect(u.changed).toBe(true);
    expect(await readdir(plugins)).toEqual([]);
  });

  it('fails safe: a command that cannot run returns at once and is said once in the agent\'s log', async () => {
    const dir = await tempDir(`${agent}-plugin-safe-`);
    const env = { HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') };
    const r = await installAgentHooks(agent, { projectRoot: dir, env, scope: null, command: join(dir, 'no-such-rewind-app') + ' hook' });
    // A fresh copy of the module: its "said once" flag is per agent process.
    const copy = join(dir, 'copy.mjs');
    await writeFile(copy, await readFile(r.file, 'utf8'));
    const mod = (await import(pathToFileURL(copy).href)) as Record<string, (ctx: unknown) => Promise<Record<string, Hook>>>;
    const logged: unknown[] = [];
    const client = { app: { log: async (x: unknown) => void logged.push(x) } };
    const hooks = await mod.RewindCheckpoints!({ directory: dir, client });
    const t = Date.now();
    for (let i = 0; i < 3; i++) await hooks['chat.message']!({ sessionID: 'ses_abc123' }, { message: { id: 'msg_1' }, parts: [{ type: 'text', text: 'hi' }] });
    await hooks.event!({ event: { type: 'session.idle', properties: { sessionID: 'ses_abc123' } } });
    expect(Date.now() - t).toBeLessThan(10_000);
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged[0])).toMatch(/did not run .*no-such-rewind-app/);
  });
});
