import { homedir } from 'node:os';
import { join } from 'node:path';
import { jsonMcpConfig } from '../mcp-json.js';

/**
 * Claude Code's MCP servers: user scope in its global config (`$CLAUDE_CONFIG_DIR/.claude.json`,
 * else `~/.claude.json`; top-level `mcpServers`, as `claude mcp add -s user` writes), project scope
 * in `<project>/.mcp.json`. Entries carry `type: "stdio"`.
 */
export const claudeMcpConfig = jsonMcpConfig({
  file: (scope, { env, project }) => (scope === 'project' ? join(project, '.mcp.json') : join(env.CLAUDE_CONFIG_DIR || env.HOME || homedir(), '.claude.json')),
  shape: (e) => ({ type: 'stdio', command: e.command, args: e.args, env: e.env ?? {} }),
  // Claude Code reads both as strict JSON (`claude mcp list`: "MCP config is not a valid JSON" for a comment).
  jsonc: false,
});
