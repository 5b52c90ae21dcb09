import type { McpScope, McpServerEntry } from '../agents/adapter.js';
import { adapterFor } from '../agents/registry.js';
import { RewindError } from '../errors.js';
import { editAgentConfig } from '../io/config-edit.js';

export interface McpInstallRequest {
  agent: string;
  scope: McpScope;
  /** The project a project-scope file belongs to (absolute). */
  project: string;
  env: NodeJS.ProcessEnv;
  name: string;
  dryRun?: boolean;
}

export interface McpInstallResult {
  agent: string;
  file: string;
  /** added / updated / unchanged (install); removed / absent (uninstall). */
  action: 'added' | 'updated' | 'unchanged' | 'removed' | 'absent';
  /** The file as it was before this change, when there was one and it changed. */
  backup: string | null;
  dryRun: boolean;
}

async function configOf(agent: string) {
  const adapter = adapterFor(agent);
  if (!adapter.mcpConfig) throw new RewindError('UNSUPPORTED', `${adapter.displayName} has no MCP config Rewind knows how to edit`);
  return { adapter, config: await adapter.mcpConfig() };
}

const same = (a: McpServerEntry, b: McpServerEntry) => JSON.stringify([a.command, a.args, a.env ?? {}]) === JSON.stringify([b.command, b.args, b.env ?? {}]);

/** A project's config is edited only inside the project; the user's own wherever its link leads. */
const where = (req: McpInstallRequest) => ({ allowedRoot: req.scope === 'project' ? req.project : null, dryRun: !!req.dryRun, newMode: 0o644 });

const located = (file: string, e: unknown) => new RewindError(e instanceof RewindError ? e.code : 'IO', `${file}: ${e instanceof Error ? e.message : String(e)}`);

/**
 * Registers `entry` under `name` in the agent's own MCP config: merged into what is there (other
 * servers and settings untouched), idempotent (the same entry again changes nothing), the previous
 * file kept as a backup. Locked, re-read inside the lock, never through a link (`io/config-edit.ts`).
 */
export async function installMcp(req: McpInstallRequest, entry: McpServerEntry): Promise<McpInstallResult> {
  const { config } = await configOf(req.agent);
  const file = config.file(req.scope, { env: req.env, project: req.project });
  const r = await editAgentConfig(file, where(req), (before) => {
    try {
      const now = config.read(before, req.name);
      if (now && same(now, entry)) return { next: undefined, result: 'unchanged' as const };
      return { next: config.add(before, req.name, entry), result: now ? ('updated' as const) : ('added' as const) };
    } catch (e) {
      throw located(file, e);
    }
  });
  return { agent: req.agent, file, action: r.result, backup: r.backup, dryRun: !!req.dryRun };
}

/**
 * Takes `name` out of the agent's MCP config, and nothing else. A file install made from nothing
 * goes; a file the user had stays (an emptied `{}` included).
 */
export async function uninstallMcp(req: McpInstallRequest): Promise<McpInstallResult> {
  const { config } = await configOf(req.agent);
  const file = config.file(req.scope, { env: req.env, project: req.project });
  const r = await editAgentConfig(file, where(req), async (before, ctx) => {
    if (before === null) return { next: undefined, result: 'absent' as const };
    let after: string | null;
    let ours: McpServerEntry | null;
    try {
      ours = config.read(before, req.name);
      after = config.remove(before, req.name);
    } catch (e) {
      throw located(file, e);
    }
    if (after === before || !ours) return { next: undefined, result: 'absent' as const };
    // Nothing else changed since the install: the file goes back byte for byte to what it was.
    const previous = await ctx.backupText();
    if (previous !== null && config.read(previous, req.name) === null && config.add(previous, req.name, ours) === before) return { next: previous, result: 'removed' as const };
    if (after === null) {
      // Nothing but our server is left: the file goes only when install made it (exactly what it wrote).
      const made = !ctx.linked && config.add(null, req.name, ours) === before;
      after = made ? null : config.remove(before, req.name, true);
    }
    return { next: after, result: 'removed' as const };
  });
  return { agent: req.agent, file, action: r.result, backup: r.backup, dryRun: !!req.dryRun };
}
