import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonMcpConfig } from '../mcp-json.js';

/**
 * Factory Droid's MCP servers: `mcpServers` in `~/.factory/mcp.json` (user; under
 * `$FACTORY_HOME_OVERRIDE` when set) or `<project>/.factory/mcp.json`; stdio entries are
 * `{type: "stdio", command, args, env?, disabled?}`.
 */
export const droidMcpConfig = jsonMcpConfig({
  file: (scope, { env, project }) => join(scope === 'project' ? project : env.FACTORY_HOME_OVERRIDE || env.HOME || homedir(), '.factory', 'mcp.json'),
  shape: (e) => ({ type: 'stdio', command: e.command, args: e.args, ...(e.env && Object.keys(e.env).length ? { env: e.env } : {}), disabled: false }),
  // `droid mcp list` reads a comment, and no server at all from a file with a trailing comma.
  jsonc: 'comments',
});
