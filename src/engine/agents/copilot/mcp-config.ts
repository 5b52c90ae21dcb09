import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonMcpConfig } from '../mcp-json.js';

/**
 * GitHub Copilot CLI's MCP servers: `mcpServers` in `mcp-config.json` of its home (`$COPILOT_HOME`,
 * else `~/.copilot`), or the project's `.github/mcp.json` (the project file of Copilot's own that no
 * other agent reads); a local server is `{type: "local", command, args, env?, tools: ["*"]}`.
 */
export const copilotMcpConfig = jsonMcpConfig({
  file: (scope, { env, project }) => (scope === 'project' ? join(project, '.github', 'mcp.json') : join(env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot'), 'mcp-config.json')),
  shape: (e) => ({ type: 'local', command: e.command, args: e.args, ...(e.env && Object.keys(e.env).length ? { env: e.env } : {}), tools: ['*'] }),
});
