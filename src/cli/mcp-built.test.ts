import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, CC_HOME, runBuiltCli, tempDir } from '../../test/fixtures.js';
import { tempEnv } from '../../test/temp.js';

/** `rewind-app mcp` as built (scripts/build-cli.mjs): its libraries bundled, off the hot file. */
describe('the built CLI’s mcp command', () => {
  let home: string;
  beforeAll(async () => {
    if (!existsSync(BUILT_CLI)) throw new Error('build the CLI first (npm run build)');
    home = await tempDir();
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('keeps the MCP SDK and the config editors out of the hot file', () => {
    // The config editor's code (jsonc-parser's scanner and edits), not the word: agents' hook specs say `jsonc: true`.
    const hot = readFileSync(BUILT_CLI, 'utf8');
    for (const lib of ['McpServer', 'StdioServerTransport', 'createScanner', 'applyEdits', 'smol-toml', 'mcp_servers']) expect(hot, lib).not.toContain(lib);
  });

  it('serves the tools over stdio', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BUILT_CLI, 'mcp'], env: { HOME: home, PATH: process.env.PATH ?? '', ...tempEnv(), CLAUDE_CONFIG_DIR: CC_HOME }, stderr: 'ignore' });
    const client = new Client({ name: 'built-test', version: '1' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('rewind');
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('search');
      const r = (await client.callTool({ name: 'search', arguments: { query: 'bee' } })) as { content: { text: string }[] };
      expect(r.content[0]!.text).toContain('prompt 789d4d84-28ff-48b2-9dd3-8dec45959e27: WRITE b.txt bee');
    } finally {
      await client.close();
    }
  });

  it('answers a message over 10 MB with an error and goes on serving, with one line on stderr', async () => {
    const child = spawn(process.execPath, [BUILT_CLI, 'mcp'], { env: { HOME: home, PATH: process.env.PATH ?? '', ...tempEnv(), CLAUDE_CONFIG_DIR: CC_HOME }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const answer = async (id: number) => {
      for (let i = 0; i < 1500; i++) {
        const line = out.split('\n').find((l) => l.startsWith('{') && (JSON.parse(l) as { id?: unknown }).id === id);
        if (line) return JSON.parse(line) as { result?: { tools?: { name: string }[] }; error?: { code: number } };
        if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${err}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no answer to ${id}: ${err}`);
    };
    try {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
      await answer(1);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: { query: 'x'.repeat(11 * 1024 * 1024) } } })}\n`);
      expect((await answer(2)).error?.code).toBe(-32600);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })}\n`);
      expect((await answer(3)).result?.tools?.map((t) => t.name)).toContain('search');
      expect(err.split('\n').filter((l) => /refused a message over 10 MB/.test(l))).toHaveLength(1);
    } finally {
      const exited = new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      child.kill();
      await exited;
    }
  });

  it('edits the agents’ configs (JSON with comments, TOML)', async () => {
    const env = { ...process.env, HOME: home };
    const r = await runBuiltCli(['mcp', 'install', '--agent', 'gemini,codex'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(home, '.gemini', 'settings.json'), 'utf8')).mcpServers.rewind.args).toEqual([BUILT_CLI, 'mcp']);
    expect(await readFile(join(home, '.codex', 'config.toml'), 'utf8')).toMatch(/^\[mcp_servers\.rewind\]\ncommand = ".*"\nargs = \[ ".*rewind-app\.mjs", "mcp" \]\n$/);
  });
});
