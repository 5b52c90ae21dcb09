import { homedir } from 'node:os';
import { join } from 'node:path';
import type { McpConfig } from './adapter.js';
import { jsonMcpConfig } from './mcp-json.js';

/**
 * The MCP servers of an OpenCode-family agent: `mcp` in `~/.config/<cli>/<cli>.json` (user; under
 * `$XDG_CONFIG_HOME`) or `<project>/<cli>.json`; a stdio server is
 * `{type: "local", command: [cmd, ...args], environment?, enabled}` (opencode.ai/docs/mcp-servers).
 */
export function storeMcpConfig(cli: string): McpConfig {
  return jsonMcpConfig({
    key: 'mcp',
    file: (scope, { env, project }) => (scope === 'project' ? join(project, `${cli}.json`) : join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), cli, `${cli}.json`)),
    shape: (e) => ({ type: 'local', command: [e.command, ...e.args], ...(e.env && Object.keys(e.env).length ? { environment: e.env } : {}), enabled: true }),
    entry: (e) => {
      const cmd = Array.isArray(e.command) ? e.command.map(String) : [String(e.command ?? '')];
      const env = e.environment && typeof e.environment === 'object' && Object.keys(e.environment).length ? { env: e.environment as Record<string, string> } : {};
      return { command: cmd[0] ?? '', args: cmd.slice(1), ...env };
    },
  });
}
