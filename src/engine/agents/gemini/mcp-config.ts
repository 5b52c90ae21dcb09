import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonMcpConfig } from '../mcp-json.js';

/**
 * Gemini CLI's MCP servers: `mcpServers` in `settings.json`, the user's
 * (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`) or the project's `.gemini/settings.json`;
 * `{command, args, env?}`.
 */
export const geminiMcpConfig = jsonMcpConfig({
  file: (scope, { env, project }) => join(scope === 'project' ? project : env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini', 'settings.json'),
  shape: (e) => ({ command: e.command, args: e.args, ...(e.env && Object.keys(e.env).length ? { env: e.env } : {}) }),
});
