import { RewindError } from '../../engine/errors.js';
import { agentsStatus, installAgentHooks, uninstallAgentHooks, type AgentHooksStatus } from '../../engine/hooks/agents-hooks.js';
import { hookCommand } from '../../engine/hooks/settings.js';
import { projectRootOrCwd } from '../../engine/sessions/resolve-transcript.js';
import type { CliIO } from '../io.js';

export interface HooksArgs {
  action?: string;
  agent?: string;
  scope?: string;
  project?: string;
  claudeDir?: string;
  json: boolean;
  dryRun: boolean;
  trust: boolean;
}

/** `--agent`: one agent id, or all; install and uninstall default to the first agent, status to all. */
async function agentsOf(arg: string | undefined, action: string): Promise<string[]> {
  const { AGENT_IDS, AGENT_PRIMARY, ADAPTERS } = await import('../../engine/agents/registry.js');
  const withHooks = AGENT_IDS.filter((id) => ADAPTERS[id].hooks);
  if (arg === undefined) return action === 'status' ? withHooks : [AGENT_PRIMARY];
  if (arg === 'all') return withHooks;
  if (!(withHooks as string[]).includes(arg)) throw new RewindError('USAGE', `--agent is ${withHooks.join(', ')} or all (got "${arg}")`);
  return [arg];
}

export async function hooksCommand(args: HooksArgs, io: CliIO): Promise<number> {
  const action = args.action ?? 'status';
  if (!['install', 'uninstall', 'status'].includes(action)) throw new RewindError('USAGE', `hooks takes install, uninstall or status (got "${action}")`);
  if (args.trust && action !== 'install') throw new RewindError('USAGE', '--trust goes with hooks install');
  const agents = await agentsOf(args.agent, action);
  const projectRoot = await projectRootOrCwd({ project: args.project, cwd: io.cwd, env: io.env });
  const where = { projectRoot, env: io.env, claudeDir: args.claudeDir ?? null };
  const { ADAPTERS } = await import('../../engine/agents/registry.js');
  for (const id of agents) {
    const scopes = ADAPTERS[id as keyof typeof ADAPTERS].hooks!.scopes;
    if (args.scope && !scopes.includes(args.scope as never)) throw new RewindError('USAGE', `--scope for ${id} is ${scopes.join(', ')} (got "${args.scope}")`);
  }
  if (action === 'status') {
    const all = await agentsStatus(agents, where);
    if (args.json) io.out(JSON.stringify({ projectRoot, agents: all, scopes: all[0]?.scopes ?? [] }));
    else printStatus(all, args.scope, io);
    return 0;
  }
  if (action === 'install' && !io.self) throw new RewindError('INTERNAL', 'cannot tell where rewind-app is installed');
  const { forEachAgent, reportFailed } = await import('./each-agent.js');
  const { done: results, failed } = await forEachAgent(agents, (id) =>
    action === 'install'
      ? installAgentHooks(id, { ...where, scope: args.scope ?? null, command: hookCommand(io.self!.node, io.self!.script), dryRun: args.dryRun, trust: args.trust })
      : uninstallAgentHooks(id, { ...where, scope: args.scope ?? null, dryRun: args.dryRun }),
  );
  const nameOf = (id: string) => ADAPTERS[id as keyof typeof ADAPTERS].displayName;
  if (args.json) {
    io.out(JSON.stringify(agents.length === 1 ? { ...results[0], dryRun: args.dryRun } : { agents: results, dryRun: args.dryRun, ...(failed.length ? { failed } : {}) }));
    return reportFailed(failed, nameOf, io, true);
  }
  for (const r of results) {
    io.out(`${args.dryRun ? 'Dry run: ' : ''}${r.displayName}: ${r.file}`);
    for (const l of r.lines) io.out(`  ${l}`);
    if (r.backup) io.out(`  backup: ${r.backup}`);
    if (r.nextStep) io.err(r.nextStep);
  }
  return reportFailed(failed, nameOf, io, false);
}

function printStatus(all: AgentHooksStatus[], scope: string | undefined, io: CliIO): void {
  for (const a of all) {
    for (const s of a.scopes) {
      if (scope && s.scope !== scope) continue;
      const state = s.error ? `unreadable (${s.error})` : s.events.length ? `installed (${s.events.join(', ')})` : 'not installed';
      const runs = !s.events.length ? '' : s.willRun === null ? `; ${s.why}` : s.willRun ? '; the agent runs them' : `; the agent will NOT run them: ${s.why}`;
      io.out(`${a.displayName.padEnd(14)} ${s.scope.padEnd(8)} ${state}${runs}  ${s.file}`);
    }
  }
  for (const a of all) if (a.installed && a.nextStep) io.err(a.nextStep);
  if (!all.some((a) => a.scopes.some((s) => s.events.length))) io.err('Install with: rewind-app hooks install --agent <id>  (a checkpoint before every prompt, shell changes included)');
}
