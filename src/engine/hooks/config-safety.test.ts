import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, open, readFile, readlink, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { installMcp, uninstallMcp } from '../mcp/install.js';
import { agentStatus, installAgentHooks, uninstallAgentHooks } from './agents-hooks.js';

/**
 * Issue #34, findings 1, 4, 6 and 7, on hostile projects and busy users made on disk: a temp HOME
 * (never the real one) with a `.bashrc` standing in for any file outside the project.
 */

const BASHRC = 'export PATH=$PATH:/usr/local/bin\n';
const CMD = "'/usr/bin/node' '/opt/rewind/out/cli/rewind-app.mjs' hook";
const MCP = { command: '/usr/bin/node', args: ['/opt/rewind/rewind-app.mjs', 'mcp'] };

async function place(prefix: string) {
  const home = await tempDir(prefix);
  const project = join(home, 'proj');
  await mkdir(project);
  const bashrc = join(home, '.bashrc');
  await writeFile(bashrc, BASHRC);
  const env = { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') };
  const where = { projectRoot: project, env, claudeDir: join(home, '.claude') };
  return { home, project, bashrc, env, where };
}

const install = (w: Awaited<ReturnType<typeof place>>, agent: string, scope: string | null) => installAgentHooks(agent, { ...w.where, scope, command: CMD });
const uninstall = (w: Awaited<ReturnType<typeof place>>, agent: string, scope: string | null) => uninstallAgentHooks(agent, { ...w.where, scope });
const mcpReq = (w: Awaited<ReturnType<typeof place>>, agent: string, scope: 'user' | 'project') => ({ agent, scope, project: w.project, env: w.env, name: 'rewind' });

describe('writes through a link the project ships (finding 1)', () => {
  const USER = '{\n  "model": { "name": "qwen3-coder" }\n}\n';
  for (const c of [
    { name: 'hooks install --agent qwen --scope project', agent: 'qwen', scope: 'project', config: '.qwen/settings.json' },
    { name: "hooks install (Claude's default scope, local)", agent: 'claude', scope: null, config: '.claude/settings.local.json' },
  ]) {
    it(`${c.name}: a <config>.rewind-backup link is refused, nothing written anywhere`, async () => {
      const w = await place('link-backup-');
      const config = join(w.project, c.config);
      await mkdir(join(config, '..'), { recursive: true });
      await writeFile(config, USER);
      await symlink(w.bashrc, `${config}.rewind-backup`);
      await expect(install(w, c.agent, c.scope)).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/rewind-backup is a link/) });
      expect(await readFile(w.bashrc, 'utf8')).toBe(BASHRC);
      expect(await readFile(config, 'utf8')).toBe(USER);
    });
  }

  it('hooks uninstall --agent gemini --scope project: a backup link shipped after the install is refused', async () => {
    const w = await place('link-uninstall-');
    await install(w, 'gemini', 'project');
    const config = join(w.project, '.gemini', 'settings.json');
    const installed = await readFile(config, 'utf8');
    await symlink(w.bashrc, `${config}.rewind-backup`);
    await expect(uninstall(w, 'gemini', 'project')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readFile(w.bashrc, 'utf8')).toBe(BASHRC);
    expect(await readFile(config, 'utf8')).toBe(installed);
  });

  it('mcp install --agent qwen --scope project: a backup link is refused', async () => {
    const w = await place('link-mcp-');
    const config = join(w.project, '.qwen', 'settings.json');
    await mkdir(join(config, '..'), { recursive: true });
    await writeFile(config, USER);
    await symlink(w.bashrc, `${config}.rewind-backup`);
    await expect(installMcp(mcpReq(w, 'qwen', 'project'), MCP)).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readFile(w.bashrc, 'utf8')).toBe(BASHRC);
    expect(await readFile(config, 'utf8')).toBe(USER);
  });

  it("a project's config (or its folder) linked out of the project is refused; the outside file is untouched", async () => {
    const w = await place('link-config-');
    const outside = join(w.home, 'other.json');
    await writeFile(outside, '{}\n');
    await mkdir(join(w.project, '.qwen'));
    await symlink(outside, join(w.project, '.qwen', 'settings.json'));
    await expect(install(w, 'qwen', 'project')).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/out of the project/) });
    await expect(installMcp(mcpReq(w, 'qwen', 'project'), MCP)).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    await mkdir(join(w.home, 'gem'));
    await symlink(join(w.home, 'gem'), join(w.project, '.gemini'));
    await expect(install(w, 'gemini', 'project')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readFile(outside, 'utf8')).toBe('{}\n');
    await expect(stat(join(w.home, 'gem', 'settings.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe.skipIf(process.platform === 'win32')('a FIFO or an oversized config (finding 4)', () => {
  it('hooks status, hooks install and mcp install refuse a FIFO config in one line, without hanging', async () => {
    const w = await place('fifo-config-');
    await mkdir(join(w.home, '.qwen'));
    const fifo = join(w.home, '.qwen', 'settings.json');
    execFileSync('mkfifo', [fifo]);
    const t0 = Date.now();
    const s = await agentStatus('qwen', w.where);
    expect(s.scopes.find((x) => x.scope === 'user')!.error).toMatch(/not a regular file/);
    await expect(install(w, 'qwen', 'user')).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.not.stringMatching(/\n/) });
    await expect(installMcp(mcpReq(w, 'qwen', 'user'), MCP)).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(Date.now() - t0).toBeLessThan(5_000);
  }, 15_000);

  it('a FIFO shipped where the config lock goes neither hangs install nor is written through', async () => {
    const w = await place('fifo-lock-');
    await mkdir(join(w.project, '.qwen'));
    const lock = join(w.project, '.qwen', 'settings.json.rewind-lock');
    execFileSync('mkfifo', [lock]);
    // As cloned a while ago.
    await utimes(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const t0 = Date.now();
    await install(w, 'qwen', 'project');
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(await readFile(join(w.project, '.qwen', 'settings.json'), 'utf8')).toContain('hook --agent qwen');
  }, 15_000);

  it('an oversized config is refused in one line, nothing written', async () => {
    const w = await place('big-config-');
    await mkdir(join(w.home, '.gemini'));
    const big = join(w.home, '.gemini', 'settings.json');
    // Sparse: 65 MB that take no room on the disk.
    const fh = await open(big, 'w');
    await fh.truncate(65 * 1024 * 1024);
    await fh.close();
    await expect(install(w, 'gemini', 'user')).rejects.toMatchObject({ code: 'IO', message: expect.stringMatching(/larger than/) });
    expect((await stat(big)).size).toBe(65 * 1024 * 1024);
  });
});

describe('concurrent installers on one config (finding 6)', () => {
  it('hooks install and mcp install at once on the same settings.json both land, every time', async () => {
    for (let trial = 0; trial < 6; trial++) {
      const w = await place('concurrent-');
      await mkdir(join(w.home, '.qwen'));
      const config = join(w.home, '.qwen', 'settings.json');
      await writeFile(config, '{\n  "model": { "name": "q" }\n}\n');
      await Promise.all([install(w, 'qwen', 'user'), installMcp(mcpReq(w, 'qwen', 'user'), MCP)]);
      const v = JSON.parse(await readFile(config, 'utf8')) as { hooks?: object; mcpServers?: object; model?: object };
      expect(v.model).toEqual({ name: 'q' });
      expect(Object.keys(v.hooks ?? {})).toHaveLength(4);
      expect(Object.keys(v.mcpServers ?? {})).toEqual(['rewind']);
      await expect(stat(`${config}.rewind-lock`)).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });
});

describe("the user's config is kept as written (finding 7)", () => {
  it("numbers, empty hooks and lists, key order, no trailing newline and the file's mode survive install; uninstall gives the bytes back", async () => {
    const w = await place('surgical-');
    const config = join(w.project, '.claude', 'settings.local.json');
    await mkdir(join(config, '..'));
    const user = '{"huge": 1e999, "id": 12345678901234567890, "hooks": {"PreToolUse": []}, "z": {}, "a": [] }';
    await writeFile(config, user);
    await chmod(config, 0o640);
    await install(w, 'claude', null);
    const installed = await readFile(config, 'utf8');
    for (const kept of ['"huge": 1e999', '"id": 12345678901234567890', '"z": {}', '"a": []']) expect(installed).toContain(kept);
    expect(installed.indexOf('"huge"')).toBeLessThan(installed.indexOf('"a"'));
    expect(installed.endsWith('}')).toBe(true);
    expect((await stat(config)).mode & 0o777).toBe(0o640);
    await uninstall(w, 'claude', null);
    expect(await readFile(config, 'utf8')).toBe(user);
    expect((await stat(config)).mode & 0o777).toBe(0o640);
  });

  // Without the backup nothing tells the user's empty `"hooks": {}` from one install made: what held only Rewind's entries goes.
  it('without the backup, uninstall removes exactly what held only Rewind\'s entries and keeps the rest', async () => {
    const w = await place('surgical-nobackup-');
    const config = join(w.project, '.codex', 'hooks.json');
    await mkdir(join(config, '..'));
    await writeFile(config, '{\n  "hooks": {},\n  "other": 1\n}\n');
    await install(w, 'codex', 'project');
    await rm(`${config}.rewind-backup`);
    await uninstall(w, 'codex', 'project');
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({ other: 1 });
  });

  it('uninstall where there is no config makes no folder and takes no lock', async () => {
    const w = await place('uninstall-none-');
    expect((await uninstall(w, 'qwen', 'project')).changed).toBe(false);
    expect((await uninstallMcp(mcpReq(w, 'gemini', 'user'))).action).toBe('absent');
    await expect(stat(join(w.project, '.qwen'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(w.home, '.gemini'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a {} file is never deleted by uninstall (hooks and MCP); a file install made is', async () => {
    const w = await place('empty-file-');
    const hooks = join(w.home, '.factory', 'hooks.json');
    await mkdir(join(hooks, '..'));
    await writeFile(hooks, '{}');
    await install(w, 'droid', 'user');
    await rm(`${hooks}.rewind-backup`);
    await uninstall(w, 'droid', 'user');
    expect(JSON.parse(await readFile(hooks, 'utf8'))).toEqual({});
    const mcp = join(w.home, '.factory', 'mcp.json');
    await writeFile(mcp, '{}');
    await installMcp(mcpReq(w, 'droid', 'user'), MCP);
    await uninstallMcp(mcpReq(w, 'droid', 'user'));
    expect(await readFile(mcp, 'utf8')).toBe('{}');
    await rm(`${mcp}.rewind-backup`);
    await installMcp(mcpReq(w, 'droid', 'user'), MCP);
    await rm(`${mcp}.rewind-backup`);
    await uninstallMcp(mcpReq(w, 'droid', 'user'));
    expect(JSON.parse(await readFile(mcp, 'utf8'))).toEqual({});
    // Made by install from nothing: uninstall leaves no file, as before.
    const gem = join(w.home, '.gemini', 'settings.json');
    await install(w, 'gemini', 'user');
    await uninstall(w, 'gemini', 'user');
    await expect(stat(gem)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it("a symlinked config (dotfiles) is edited at its target; the link stays, the backup is a file beside it", async () => {
    const w = await place('dotfiles-');
    const dot = join(w.home, 'dotfiles', 'qwen-settings.json');
    await mkdir(join(dot, '..'));
    await writeFile(dot, '{\n  // mine\n  "model": { "name": "q" }\n}\n');
    await mkdir(join(w.home, '.qwen'));
    const config = join(w.home, '.qwen', 'settings.json');
    await symlink(dot, config);
    await install(w, 'qwen', 'user');
    expect((await lstat(config)).isSymbolicLink()).toBe(true);
    expect(await readlink(config)).toBe(dot);
    const text = await readFile(dot, 'utf8');
    expect(text).toContain('// mine');
    expect(text).toContain('rewind-app.mjs');
    const backup = await lstat(`${config}.rewind-backup`);
    expect(backup.isFile()).toBe(true);
    expect((await agentStatus('qwen', w.where)).installed).toBe(true);
    await uninstall(w, 'qwen', 'user');
    expect((await lstat(config)).isSymbolicLink()).toBe(true);
    expect(await readFile(dot, 'utf8')).toBe('{\n  // mine\n  "model": { "name": "q" }\n}\n');
  });

  it('hooks install accepts JSONC where the agent does (Qwen, Gemini), as mcp install does; strict JSON stays strict (Codex)', async () => {
    const w = await place('jsonc-');
    for (const agent of ['qwen', 'gemini']) {
      const config = join(w.home, `.${agent}`, 'settings.json');
      await mkdir(join(config, '..'), { recursive: true });
      await writeFile(config, '{\n  // theme first\n  "ui": { "theme": "Dracula" },\n}\n');
      await install(w, agent, 'user');
      const text = await readFile(config, 'utf8');
      expect(text).toContain('// theme first');
      expect(text).toContain(`hook --agent ${agent}`);
    }
    const codex = join(w.home, '.codex', 'hooks.json');
    await mkdir(join(codex, '..'), { recursive: true });
    await writeFile(codex, '{\n  // no\n}\n');
    await expect(install(w, 'codex', 'user')).rejects.toMatchObject({ message: expect.stringMatching(/not valid JSON/) });
    expect(await readFile(codex, 'utf8')).toBe('{\n  // no\n}\n');
  });
});
