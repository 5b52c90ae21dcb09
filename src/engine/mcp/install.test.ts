import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../cli/main.js';
import type { McpScope } from '../agents/adapter.js';
import { AGENT_IDS, adapterFor } from '../agents/registry.js';
import { installMcp, uninstallMcp } from './install.js';

let home: string;
let project: string;
const entry = { command: '/usr/bin/node', args: ['/opt/rewind app/rewind-app.mjs', 'mcp'] };
const req = (agent: string, scope: McpScope = 'user') => ({ agent, scope, project, env: { HOME: home }, name: 'rewind' });
const fileOf = async (agent: string, scope: McpScope = 'user') => (await adapterFor(agent).mcpConfig!()).file(scope, { env: { HOME: home }, project });

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rewind-mcp-install-'));
  project = join(home, 'work', 'project');
  await mkdir(project, { recursive: true });
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Each agent's own config, as the user had it before: other servers, other settings, comments. */
const EXISTING: Record<string, string> = {
  claude: `{\n  "numStartups": 12,\n  "mcpServers": {\n    "other": { "type": "stdio", "command": "other-server", "args": [] }\n  },\n  "projects": {}\n}\n`,
  codex: `# my codex config\nmodel = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other-server" # keep me\nargs = ["--x"]\n\n[profiles.fast]\nmodel = "gpt-5-mini"\n`,
  droid: `{\n  "mcpServers": {\n    "other": { "type": "stdio", "command": "other-server", "args": [], "disabled": false }\n  }\n}\n`,
  qwen: `{\n  // my settings\n  "model": { "name": "qwen3-coder" },\n  "mcpServers": { "other": { "command": "other-server", "args": [] } }\n}\n`,
  gemini: `{\n  // theme first\n  "ui": { "theme": "Dracula" },\n}\n`,
  copilot: `{\n  "mcpServers": {\n    "other": { "type": "local", "command": "other-server", "args": [], "tools": ["*"] }\n  }\n}\n`,
  opencode: `{\n  // mine\n  "$schema": "https://opencode.ai/config.json",\n  "mcp": { "other": { "type": "local", "command": ["other-server"], "enabled": true } }\n}\n`,
  kilo: `{\n  // mine\n  "mcp": { "other": { "type": "local", "command": ["other-server"], "enabled": true } }\n}\n`,
};

describe.each(AGENT_IDS)('%s', (agent) => {
  it('the user scope file is the agent’s own MCP config', async () => {
    const expected = { claude: join(home, '.claude.json'), codex: join(home, '.codex', 'config.toml'), droid: join(home, '.factory', 'mcp.json'), qwen: join(home, '.qwen', 'settings.json'), gemini: join(home, '.gemini', 'settings.json'), copilot: join(home, '.copilot', 'mcp-config.json'), opencode: join(home, '.config', 'opencode', 'opencode.json'), kilo: join(home, '.config', 'kilo', 'kilo.json') }[agent];
    expect(await fileOf(agent)).toBe(expected);
    const inProject = { claude: join(project, '.mcp.json'), codex: join(project, '.codex', 'config.toml'), droid: join(project, '.factory', 'mcp.json'), qwen: join(project, '.qwen', 'settings.json'), gemini: join(project, '.gemini', 'settings.json'), copilot: join(project, '.github', 'mcp.json'), opencode: join(project, 'opencode.json'), kilo: join(project, 'kilo.json') }[agent];
    expect(await fileOf(agent, 'project')).toBe(inProject);
  });

  it('merges into an existing config, keeps a backup, is idempotent, and uninstall puts the file back exactly', async () => {
    const file = await fileOf(agent);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, EXISTING[agent]!, { mode: 0o600 });
    const first = await installMcp(req(agent), entry);
    expect(first).toMatchObject({ action: 'added', file, backup: `${file}.rewind-backup` });
    expect(await readFile(`${file}.rewind-backup`, 'utf8')).toBe(EXISTING[agent]);
    const text = await readFile(file, 'utf8');
    // Everything that was there still is, comments included.
    for (const kept of EXISTING[agent]!.match(/other-server|(#|\/\/) [a-z ]+/g)!) expect(text).toContain(kept);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const config = await adapterFor(agent).mcpConfig!();
    expect(config.read(text, 'rewind')).toEqual(entry);
    if (agent !== 'gemini') expect(config.read(text, 'other')?.command).toBe('other-server');
    if (agent === 'codex') expect((parseToml(text) as { profiles: unknown }).profiles).toEqual({ fast: { model: 'gpt-5-mini' } });
    else if (agent === 'claude') expect(JSON.parse(text)).toMatchObject({ numStartups: 12, projects: {}, mcpServers: { rewind: { type: 'stdio', ...entry, env: {} } } });

    expect(await installMcp(req(agent), entry)).toMatchObject({ action: 'unchanged', backup: null });
    expect(await readFile(file, 'utf8')).toBe(text);
    const moved = { ...entry, args: [...entry.args, '--allow-writes'] };
    expect(await installMcp(req(agent), moved)).toMatchObject({ action: 'updated' });
    expect(config.read(await readFile(file, 'utf8'), 'rewind')).toEqual(moved);

    expect(await uninstallMcp(req(agent))).toMatchObject({ action: 'removed' });
    const back = await readFile(file, 'utf8');
    if (agent === 'gemini') expect(back.replace(/\s+/g, '')).toBe(EXISTING.gemini!.replace(/\s+/g, ''));
    else expect(back).toBe(EXISTING[agent]);
    expect(await uninstallMcp(req(agent))).toMatchObject({ action: 'absent', backup: null });
  });

  it('install then uninstall leaves the file byte for byte as it was', async () => {
    const file = await fileOf(agent);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, EXISTING[agent]!);
    await installMcp(req(agent), entry);
    expect(await readFile(file, 'utf8')).not.toBe(EXISTING[agent]);
    await uninstallMcp(req(agent));
    expect(await readFile(file, 'utf8')).toBe(EXISTING[agent]);
  });

  it('a missing config is created, and removed again by uninstall', async () => {
    const file = await fileOf(agent, 'project');
    expect(await installMcp({ ...req(agent, 'project'), dryRun: true }, entry)).toMatchObject({ action: 'added', dryRun: true });
    expect(existsSync(file)).toBe(false);
    expect(await installMcp(req(agent, 'project'), entry)).toMatchObject({ action: 'added', backup: null });
    expect((await adapterFor(agent).mcpConfig!()).read(await readFile(file, 'utf8'), 'rewind')).toEqual(entry);
    expect(await uninstallMcp(req(agent, 'project'))).toMatchObject({ action: 'removed' });
    expect(existsSync(file)).toBe(false);
  });

  it('a config it cannot read is refused and left as it was', async () => {
    const file = await fileOf(agent);
    await mkdir(dirname(file), { recursive: true });
    const broken = agent === 'codex' ? '[mcp_servers.other\ncommand = \n' : '{ "mcpServers": { "other": ';
    await writeFile(file, broken);
    await expect(installMcp(req(agent), entry)).rejects.toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid (JSON|TOML).*nothing was changed`));
    await expect(uninstallMcp(req(agent))).rejects.toThrow(/nothing was changed/);
    expect(await readFile(file, 'utf8')).toBe(broken);
    expect(existsSync(`${file}.rewind-backup`)).toBe(false);
  });
});

it('codex: a rewind server between other tables, with its env table, is cut out alone', async () => {
  const file = await fileOf('codex');
  await mkdir(dirname(file), { recursive: true });
  const head = 'model = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other-server"\n';
  const tail = '[profiles.fast] # fast\nmodel = "gpt-5-mini"\n';
  await writeFile(file, `${head}\n[mcp_servers.rewind]\ncommand = "old"\nargs = []\n\n[mcp_servers.rewind.env]\nA = "1"\n\n${tail}`);
  expect(await uninstallMcp(req('codex'))).toMatchObject({ action: 'removed' });
  expect(await readFile(file, 'utf8')).toBe(`${head}\n${tail}`);
  expect(await installMcp(req('codex'), { ...entry, env: { REWIND_MCP_ALLOW_WRITES: '1' } })).toMatchObject({ action: 'added' });
  const text = await readFile(file, 'utf8');
  expect(text.startsWith(`${head}\n${tail}`)).toBe(true);
  expect((parseToml(text) as { mcp_servers: Record<string, unknown> }).mcp_servers.rewind).toEqual({ ...entry, env: { REWIND_MCP_ALLOW_WRITES: '1' } });
});

it('codex: a server defined inline is refused rather than guessed at', async () => {
  const file = await fileOf('codex');
  await mkdir(dirname(file), { recursive: true });
  const inline = 'mcp_servers = { rewind = { command = "old", args = [] } }\n';
  await writeFile(file, inline);
  await expect(installMcp(req('codex'), entry)).rejects.toThrow(/defined inline or with dotted keys: edit it by hand, nothing was changed/);
  expect(await readFile(file, 'utf8')).toBe(inline);
});

describe('rewind-app mcp install|uninstall', () => {
  const io = (out: string[], err: string[]) => ({ out: (t: string) => out.push(t), err: (t: string) => err.push(t), env: { HOME: home }, cwd: project, self: { node: '/usr/bin/node', script: '/opt/rewind/rewind-app.mjs' } });

  it('registers the server with absolute paths in every agent asked for, and takes it out again', async () => {
    const out: string[] = [];
    const err: string[] = [];
    expect(await run(['mcp', 'install', '--agent', 'codex,qwen', '--allow-writes'], io(out, err)), err.join('\n')).toBe(0);
    expect(out).toEqual([`Codex CLI: rewind registered in ${join(home, '.codex', 'config.toml')}`, `Qwen Code: rewind registered in ${join(home, '.qwen', 'settings.json')}`]);
    const toml = parseToml(await readFile(join(home, '.codex', 'config.toml'), 'utf8')) as { mcp_servers: Record<string, unknown> };
    expect(toml.mcp_servers.rewind).toEqual({ command: '/usr/bin/node', args: ['/opt/rewind/rewind-app.mjs', 'mcp', '--allow-writes'] });
    out.length = 0;
    expect(await run(['mcp', 'install', '--agent', 'codex', '--allow-writes'], io(out, err))).toBe(0);
    expect(out).toEqual([`Codex CLI: rewind already registered in ${join(home, '.codex', 'config.toml')}`]);
    out.length = 0;
    expect(await run(['mcp', 'uninstall', '--agent', 'all', '--json'], io(out, err))).toBe(0);
    // Every agent of the registry, in its order: the two registered here removed, the rest had none.
    expect((JSON.parse(out.join('')) as { agent: string; action: string }[]).map((r) => [r.agent, r.action])).toEqual(AGENT_IDS.map((a) => [a, a === 'codex' || a === 'qwen' ? 'removed' : 'absent']));
    expect(existsSync(join(home, '.codex', 'config.toml'))).toBe(false);
  });

  it('refuses what it does not know, with a usage error', async () => {
    const err: string[] = [];
    expect(await run(['mcp', 'install'], io([], err))).toBe(2);
    expect(await run(['mcp', 'install', '--agent', 'vim'], io([], err))).toBe(2);
    expect(await run(['mcp', 'install', '--agent', 'claude', '--scope', 'local'], io([], err))).toBe(2);
    expect(await run(['mcp', 'reinstall', '--agent', 'claude'], io([], err))).toBe(2);
    expect(err).toEqual([
      `rewind-app: mcp install needs --agent ${AGENT_IDS.join('|')} (or a comma-separated list, or all)`,
      `rewind-app: --agent must be one of ${AGENT_IDS.join(', ')} (got "vim")`,
      'rewind-app: --scope must be user or project (got "local")',
      'rewind-app: mcp takes install or uninstall, or nothing to run the server (got "reinstall")',
    ]);
  });
});
