import { claudeConfigRoot } from '../../engine/agents/claude/paths.js';
import { RewindError } from '../../engine/errors.js';
import { hookCommand, hooksStatus, installHooks, settingsPath, uninstallHooks, type Scope } from '../../engine/hooks/settings.js';
import { projectRootOrCwd } from '../../engine/resolve-transcript.js';
import type { CliIO } from '../io.js';

export interface HooksArgs {
  action?: string;
  scope?: string;
  project?: string;
  claudeDir?: string;
  json: boolean;
  dryRun: boolean;
}

const SCOPES: Scope[] = ['user', 'project', 'local'];

export async function hooksCommand(args: HooksArgs, io: CliIO): Promise<number> {
  const action = args.action ?? 'status';
  if (!['install', 'uninstall', 'status'].includes(action)) throw new RewindError('USAGE', `hooks takes install, uninstall or status (got "${action}")`);
  if (args.scope && !SCOPES.includes(args.scope as Scope)) throw new RewindError('USAGE', `--scope is user, project or local (got "${args.scope}")`);
  const projectRoot = await projectRootOrCwd({ project: args.project, cwd: io.cwd, env: io.env });
  const claudeRoot = args.claudeDir ?? claudeConfigRoot(io.env);
  if (action === 'status') {
    const all = await Promise.all(SCOPES.map((s) => hooksStatus(settingsPath(s, projectRoot, claudeRoot), s)));
    const shown = args.scope ? all.filter((s) => s.scope === args.scope) : all;
    if (args.json) io.out(JSON.stringify({ projectRoot, scopes: shown }));
    else {
      for (const s of shown) io.out(`${s.scope.padEnd(8)} ${s.events.length ? `installed (${s.events.join(', ')})` : 'not installed'}  ${s.file}`);
      if (!shown.some((s) => s.events.length)) io.err('Install with: rewind-app hooks install  (adds a checkpoint before every prompt, and records what the agent edits)');
    }
    return 0;
  }
  const scope = (args.scope as Scope | undefined) ?? 'local';
  const file = settingsPath(scope, projectRoot, claudeRoot);
  if (action === 'install') {
    if (!io.self) throw new RewindError('INTERNAL', 'cannot tell where rewind-app is installed');
    const change = await installHooks(file, hookCommand(io.self.node, io.self.script), args.dryRun);
    report(change, args, io);
  } else {
    report(await uninstallHooks(file, args.dryRun), args, io);
  }
  return 0;
}

function report(c: { file: string; changed: boolean; lines: string[] }, args: HooksArgs, io: CliIO): void {
  if (args.json) {
    io.out(JSON.stringify({ ...c, dryRun: args.dryRun }));
    return;
  }
  io.out(`${args.dryRun ? 'Dry run: ' : ''}${c.file}`);
  for (const l of c.lines) io.out(`  ${l}`);
}
