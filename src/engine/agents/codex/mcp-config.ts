import { homedir } from 'node:os';
import { join } from 'node:path';
import { tomlMcpConfig } from '../mcp-toml.js';

/**
 * Codex CLI's MCP servers: `[mcp_servers.<name>]` tables (`command`, `args`, `env`) in
 * `$CODEX_HOME/config.toml` (user), or `<project>/.codex/config.toml`, which Codex reads only in a
 * trusted project.
 */
export const codexMcpConfig = tomlMcpConfig({
  file: (scope, { env, project }) => (scope === 'project' ? join(project, '.codex', 'config.toml') : join(env.CODEX_HOME || join(env.HOME || homedir(), '.codex'), 'config.toml')),
});
