import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { withTrust } from '../agents/codex/hook-trust.js';
import { installAgentHooks, uninstallAgentHooks } from '../hooks/agents-hooks.js';
import { installMcp, uninstallMcp } from '../mcp/install.js';

/**
 * A busy user's configs, probed again (issue #34, "configs are kept exactly as you wrote them"):
 * every byte beyond Rewind's own entries stays, or nothing is written.
 */

const CMD = "'/usr/bin/node' '/opt/rewind/out/cli/rewind-app.mjs' hook";
const MCP = { command: '/usr/bin/node', args: ['/opt/rewind/rewind-app.mjs', 'mcp'] };

async function home(prefix: string) {
  const dir = await tempDir(prefix);
  const project = join(dir, 'proj');
  await mkdir(project);
  return { dir, project, env: { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') } };
}

describe('a config that is not UTF-8', () => {
  // A Latin-1 "café": read as UTF-8 and written back, its é became U+FFFD (EF BF BD) in the user's file.
  const LATIN1 = Buffer.concat([Buffer.from('{\n  "name": "caf'), Buffer.from([0xe9]), Buffer.from('"\n}\n')]);

  it('hooks install refuses it in one line and leaves its bytes as they were', async () => {
    const h = await home('cfg-latin1-hooks-');
    const config = join(h.dir, '.qwen', 'settings.json');
    await mkdir(join(config, '..'), { recursive: true });
    await writeFile(config, LATIN1);
    await expect(installAgentHooks('qwen', { projectRoot: h.project, env: h.env, scope: 'user', command: CMD })).rejects.toMatchObject({ message: expect.stringMatching(/is not UTF-8/) });
    expect((await readFile(config)).equals(LATIN1)).toBe(true);
  });

  it('mcp install refuses it too (JSON and TOML)', async () => {
    const h = await home('cfg-latin1-mcp-');
    const json = join(h.dir, '.gemini', 'settings.json');
    const toml = join(h.dir, '.codex', 'config.toml');
    await mkdir(join(json, '..'), { recursive: true });
    await mkdir(join(toml, '..'), { recursive: true });
    await writeFile(json, LATIN1);
    const tomlBytes = Buffer.concat([Buffer.from('name = "caf'), Buffer.from([0xe9]), Buffer.from('"\n')]);
    await writeFile(toml, tomlBytes);
    for (const agent of ['gemini', 'codex']) {
      await expect(installMcp({ agent, scope: 'user', project: h.project, env: h.env, name: 'rewind' }, MCP)).rejects.toMatchObject({ message: expect.stringMatching(/is not UTF-8/) });
    }
    expect((await readFile(json)).equals(LATIN1)).toBe(true);
    expect((await readFile(toml)).equals(tomlBytes)).toBe(true);
  });

  it('a UTF-8 file holding U+FFFD itself is still edited', async () => {
    const h = await home('cfg-fffd-');
    const config = join(h.dir, '.qwen', 'settings.json');
    await mkdir(join(config, '..'), { recursive: true });
    await writeFile(config, '{\n  "name": "\uFFFD"\n}\n');
    await installAgentHooks('qwen', { projectRoot: h.project, env: h.env, scope: 'user', command: CMD });
    expect(await readFile(config, 'utf8')).toContain('"name": "\uFFFD"');
  });
});

describe("Codex's config.toml is edited as text", () => {
  const req = (h: Awaited<ReturnType<typeof home>>) => ({ agent: 'codex', scope: 'user' as const, project: h.project, env: h.env, name: 'rewind' });
  const file = (h: Awaited<ReturnType<typeof home>>) => join(h.dir, '.codex', 'config.toml');
  async function withConfig(text: string) {
    const h = await home('cfg-toml-');
    await mkdir(join(file(h), '..'), { recursive: true });
    await writeFile(file(h), text);
    return h;
  }

  it('CRLF line ends stay CRLF: the added server too, no bare LF anywhere', async () => {
    const h = await withConfig('model = "o3"\r\n\r\n[profiles.x]\r\nk = 1.50 # mine\r\n');
    await installMcp(req(h), MCP);
    const text = await readFile(file(h), 'utf8');
    expect(text.startsWith('model = "o3"\r\n\r\n[profiles.x]\r\nk = 1.50 # mine\r\n')).toBe(true);
    expect(text).toContain('[mcp_servers.rewind]\r\n');
    expect(/[^\r]\n/.test(text)).toBe(false);
  });

  it("the user's text is kept to its last byte: trailing blank lines, and no newline at the end stays none", async () => {
    const blank = await withConfig('model = "o3"\n\n\n');
    await installMcp(req(blank), MCP);
    expect((await readFile(file(blank), 'utf8')).startsWith('model = "o3"\n\n\n[mcp_servers.rewind]\n')).toBe(true);
    const bare = await withConfig('model = "o3"');
    await installMcp(req(bare), MCP);
    const text = await readFile(file(bare), 'utf8');
    expect(text.startsWith('model = "o3"\n\n[mcp_servers.rewind]\n')).toBe(true);
    expect(text.endsWith('\n')).toBe(false);
    expect(parseToml(text)).toMatchObject({ model: 'o3', mcp_servers: { rewind: { command: MCP.command } } });
  });

  it('a header-looking line inside a multi-line string is text: uninstall takes out only the real server', async () => {
    const user = 'note = """\n[mcp_servers.rewind]\nx = 1\n"""\nlit = \'\'\'\n[mcp_servers.rewind]\n\'\'\'\n\n[other]\ny = 2\n';
    const h = await withConfig(user);
    await installMcp(req(h), MCP);
    // The user edits elsewhere: uninstall cannot give the backup back, it cuts our table out of the text.
    const installed = await readFile(file(h), 'utf8');
    await writeFile(file(h), installed.replace('y = 2', 'y = 3'));
    await uninstallMcp(req(h));
    expect(await readFile(file(h), 'utf8')).toBe(user.replace('y = 2', 'y = 3'));
  });

  it("trust is recorded in the file's own line ends, beside the user's header-like text", () => {
    const crlf = withTrust('model = "o3"\r\n', '/h/hooks.json:pre:0', 'sha256:1');
    expect(crlf).toBe('model = "o3"\r\n\r\n[hooks.state."/h/hooks.json:pre:0"]\r\ntrusted_hash = "sha256:1"\r\n');
    const inString = 'note = """\n[hooks.state."k"]\n"""\n';
    const next = withTrust(inString, 'k', 'sha256:2');
    expect(parseToml(next)).toMatchObject({ note: '[hooks.state."k"]\n', hooks: { state: { k: { trusted_hash: 'sha256:2' } } } });
    const again = withTrust(`${next}`, 'k', 'sha256:3');
    expect(parseToml(again)).toMatchObject({ hooks: { state: { k: { trusted_hash: 'sha256:3' } } } });
  });
});

describe('hooks uninstall keeps what the user wrote after the install', () => {
  it('a CRLF settings.json edited since: only Rewind entries go, line ends stay CRLF', async () => {
    const h = await home('cfg-crlf-');
    const config = join(h.dir, '.gemini', 'settings.json');
    await mkdir(join(config, '..'), { recursive: true });
    await writeFile(config, '{\r\n  "a": 1\r\n}\r\n');
    await installAgentHooks('gemini', { projectRoot: h.project, env: h.env, scope: 'user', command: CMD });
    const installed = await readFile(config, 'utf8');
    expect(/[^\r]\n/.test(installed)).toBe(false);
    await writeFile(config, installed.replace('"a": 1', '"a": 2'));
    await uninstallAgentHooks('gemini', { projectRoot: h.project, env: h.env, scope: 'user' });
    expect(await readFile(config, 'utf8')).toBe('{\r\n  "a": 2\r\n}\r\n');
  });
});

describe("JSON as each agent reads it (its own parser's rules, measured with each CLI's `mcp list`)", () => {
  it('hooks install takes comments where Droid and Copilot do, keeps them; a trailing comma Droid refuses is refused', async () => {
    const h = await home('cfg-dialect-hooks-');
    for (const [agent, rel] of [
      ['droid', '.factory/hooks.json'],
      ['copilot', '.copilot/settings.json'],
    ] as const) {
      const config = join(h.dir, rel);
      await mkdir(join(config, '..'), { recursive: true });
      await writeFile(config, '{\n  // mine\n  "x": 1\n}\n');
      await installAgentHooks(agent, { projectRoot: h.project, env: h.env, scope: 'user', command: CMD });
      const text = await readFile(config, 'utf8');
      expect(text).toContain('// mine');
      expect(text).toContain(`hook --agent ${agent}`);
    }
    const droid = join(h.dir, '.factory', 'hooks.json');
    await writeFile(droid, '{\n  "x": 1,\n}\n');
    await expect(installAgentHooks('droid', { projectRoot: h.project, env: h.env, scope: 'user', command: CMD })).rejects.toMatchObject({ message: expect.stringMatching(/not valid JSON/) });
    expect(await readFile(droid, 'utf8')).toBe('{\n  "x": 1,\n}\n');
  });

  it("mcp install refuses a comment in Claude Code's .mcp.json (Claude refuses it), takes one in Copilot's", async () => {
    const h = await home('cfg-dialect-mcp-');
    const claude = join(h.project, '.mcp.json');
    await writeFile(claude, '{\n  // mine\n  "mcpServers": {}\n}\n');
    await expect(installMcp({ agent: 'claude', scope: 'project', project: h.project, env: h.env, name: 'rewind' }, MCP)).rejects.toMatchObject({ message: expect.stringMatching(/not valid JSON/) });
    expect(await readFile(claude, 'utf8')).toBe('{\n  // mine\n  "mcpServers": {}\n}\n');
    const copilot = join(h.project, '.github', 'mcp.json');
    await mkdir(join(copilot, '..'), { recursive: true });
    await writeFile(copilot, '{\n  // mine\n  "mcpServers": {},\n}\n');
    await installMcp({ agent: 'copilot', scope: 'project', project: h.project, env: h.env, name: 'rewind' }, MCP);
    expect(await readFile(copilot, 'utf8')).toContain('// mine');
  });
});

describe("Codex's config.toml in CRLF, uninstalled after an edit elsewhere", () => {
  it('our table goes, the rest stays byte for byte, still CRLF and valid', async () => {
    const h = await home('cfg-toml-crlf-un-');
    const file = join(h.dir, '.codex', 'config.toml');
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, 'model = "o3"\r\n\r\n[a]\r\nb = 1\r\n');
    const req = { agent: 'codex', scope: 'user' as const, project: h.project, env: h.env, name: 'rewind' };
    await installMcp(req, MCP);
    await writeFile(file, (await readFile(file, 'utf8')).replace('b = 1', 'b = 2'));
    await uninstallMcp(req);
    expect(await readFile(file, 'utf8')).toBe('model = "o3"\r\n\r\n[a]\r\nb = 2\r\n');
  });
});
