import { resolve } from 'node:path';
import { AGENT_IDS, AGENT_PRIMARY, adapterFor } from '../../engine/agents/registry.js';
import { RewindError } from '../../engine/errors.js';
import type { CliIO } from '../io.js';

declare const __APP_VERSION__: string;

/** The name the server is registered under (its tools reach agents as `mcp__rewind__<tool>`); the door's MCP_SERVER_NAME. */
const MCP_NAME = 'rewind';

export interface McpArgs {
  action?: string;
  agent?: string;
  scope?: string;
  project?: string;
  allowWrites: boolean;
  dryRun: boolean;
  json: boolean;
  claudeDir?: string;
}

/** `rewind-app mcp` (the server, on stdio) and `rewind-app mcp install|uninstall --agent <id>`. */
export async function mcpCommand(args: McpArgs, io: CliIO): Promise<number> {
  if (args.action === undefined) return serve(args, io);
  if (args.action !== 'install' && args.action !== 'uninstall') throw new RewindError('USAGE', `mcp takes install or uninstall, or nothing to run the server (got "${args.action}")`);
  return register(args.action, args, io);
}

const writesFromEnv = (env: NodeJS.ProcessEnv) => /^(1|true|yes)$/i.test(env.REWIND_MCP_ALLOW_WRITES ?? '');

/** The MCP server on stdin/stdout until the client closes it; stdout carries the protocol only. */
async function serve(args: McpArgs, io: CliIO): Promise<number> {
  const [{ McpStdioTransport }, { createMcpServer }, { RewindService }] = await Promise.all([
    import('../../main/doors/mcp-stdio.js'),
    import('../../main/doors/mcp-door.js'),
    import('../../main/service/rewind-service.js'),
  ]);
  const version = typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : 'dev';
  // No watcher: every list and search looks at the files again (the index reads only what changed).
  const service = new RewindService({ claudeRoot: args.claudeDir ?? (io.env.CLAUDE_CONFIG_DIR || undefined), watch: false, env: io.env, cli: io.self, version });
  await service.start();
  const server = createMcpServer(service, { allowWrites: args.allowWrites || writesFromEnv(io.env), cwd: io.cwd, version });
  const closed = new Promise<void>((r) => (server.server.onclose = r));
  // Our transport, not the SDK's: a message over its limit is answered and skipped instead of ending the server.
  await server.connect(new McpStdioTransport(process.stdin, process.stdout, { log: (line) => io.err(line) }));
  io.err(`rewind-app mcp: serving on stdio (writes ${args.allowWrites || writesFromEnv(io.env) ? 'allowed' : 'off'})`);
  await closed;
  await service.close();
  return 0;
}

async function register(action: 'install' | 'uninstall', args: McpArgs, io: CliIO): Promise<number> {
  if (!args.agent) throw new RewindError('USAGE', `mcp ${action} needs --agent ${AGENT_IDS.join('|')} (or a comma-separated list, or all)`);
  const agents = args.agent === 'all' ? AGENT_IDS.filter((id) => adapterFor(id).mcpConfig) : args.agent.split(',').map((a) => a.trim());
  for (const a of agents) if (!(AGENT_IDS as string[]).includes(a)) throw new RewindError('USAGE', `--agent must be one of ${AGENT_IDS.join(', ')} (got "${a}")`);
  const scope = args.scope ?? 'user';
  if (scope !== 'user' && scope !== 'project') throw new RewindError('USAGE', `--scope must be user or project (got "${scope}")`);
  if (action === 'uninstall' && args.allowWrites) throw new RewindError('USAGE', '--allow-writes goes with mcp install');
  const self = io.self;
  if (action === 'install' && !self) throw new RewindError('INTERNAL', 'this build does not know where its CLI is');
  const { installMcp, uninstallMcp } = await import('../../engine/mcp/install.js');
  const env = args.claudeDir ? { ...io.env, CLAUDE_CONFIG_DIR: args.claudeDir } : io.env;
  const { forEachAgent, reportFailed } = await import('./each-agent.js');
  const { done: results, failed } = await forEachAgent(agents, (agent) => {
    const req = { agent, scope: scope as 'user' | 'project', project: resolve(io.cwd, args.project ?? '.'), env, name: MCP_NAME, dryRun: args.dryRun };
    // Absolute paths: the agent starts the server from any folder, with any PATH.
    const entry = { command: self!.node, args: [self!.script, 'mcp', ...(args.allowWrites ? ['--allow-writes'] : []), ...(args.claudeDir && agent === AGENT_PRIMARY ? ['--claude-dir', args.claudeDir] : [])] };
    return action === 'install' ? installMcp(req, entry) : uninstallMcp(req);
  });
  const nameOf = (id: string) => adapterFor(id).displayName;
  if (args.json) io.out(JSON.stringify(failed.length ? [...results, ...failed.map((f) => ({ agent: f.agent, error: { code: f.code, message: f.message } }))] : results, null, 2));
  else
    for (const r of results) {
      const name = adapterFor(r.agent).displayName;
      const verb = { added: 'registered in', updated: 'updated in', unchanged: 'already registered in', removed: 'removed from', absent: 'not registered in' }[r.action];
      io.out(`${name}: rewind ${verb} ${r.file}${r.dryRun && r.action !== 'unchanged' && r.action !== 'absent' ? ' (dry run: nothing written)' : ''}${r.backup ? ` (previous file kept as ${r.backup})` : ''}`);
    }
  return reportFailed(failed, nameOf, io, args.json);
}
