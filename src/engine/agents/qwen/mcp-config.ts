import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonMcpConfig } from '../mcp-json.js';

/**
 * Qwen Code's MCP servers: `mcpServers` in `settings.json`, the user's (`$QWEN_HOME`, else
 * `~/.qwen`) or the project's `.qwen/settings.json` (read in a trusted folder); `{command, args, env?}`.
 */
export const qwenMcpConfig = jsonMcpConfig({
  file: (scope, { env, project }) => (scope === 'project' ? join(project, '.qwen', 'settings.json') : join(env.QWEN_HOME || join(env.HOME || homedir(), '.qwen'), 'settings.json')),
  shape: (e) => ({ command: e.command, args: e.args, ...(e.env && Object.keys(e.env).length ? { env: e.env } : {}) }),
});
