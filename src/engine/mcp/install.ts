import { copyFile, mkdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { McpScope, McpServerEntry } from '../agents/adapter.js';
import { adapterFor } from '../agents/registry.js';
import { RewindError } from '../errors.js';
import { writeBufferAtomic } from '../io/atomic-write.js';

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

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

const same = (a: McpServerEntry, b: McpServerEntry) => JSON.stringify([a.command, a.args, a.env ?? {}]) === JSON.stringify([b.command, b.args, b.env ?? {}]);

/** Writes the new text atomically, keeping the file's mode and the previous text as `<file>.rewind-backup`. */
async function commit(file: string, before: string | null, after: string | null): Promise<string | null> {
  let backup: string | null = null;
  const mode = (await stat(file).catch(() => null))?.mode;
  if (before !== null) {
    backup = `${file}.rewind-backup`;
    await copyFile(file, backup);
  }
  if (after === null) await rm(file, { force: true });
  else {
    await mkdir(dirname(file), { recursive: true });
    await writeBufferAtomic(file, after, { mode: mode !== undefined ? mode & 0o777 : 0o644 });
  }
  return backup;
}

/**
 * Registers `entry` under `name` in the agent's own MCP config: merged into what is there (other
 * servers and settings untouched), idempotent (the same entry again changes nothing), the previous
 * file kept as a backup.
 */
export async function installMcp(req: McpInstallRequest, entry: McpServerEntry): Promise<McpInstallResult> {
  const { config } = await configOf(req.agent);
  const file = config.file(req.scope, { env: req.env, project: req.project });
  const before = await readText(file);
  const where = (e: unknown) => new RewindError(e instanceof RewindError ? e.code : 'IO', `${file}: ${e instanceof Error ? e.message : String(e)}`);
  let now: McpServerEntry | null;
  let after: string;
  try {
    now = config.read(before, req.name);
    if (now && same(now, entry)) return { agent: req.agent, file, action: 'unchanged', backup: null, dryRun: !!req.dryRun };
    after = config.add(before, req.name, entry);
  } catch (e) {
    throw where(e);
  }
  const backup = req.dryRun ? null : await commit(file, before, after);
  return { agent: req.agent, file, action: now ? 'updated' : 'added', backup, dryRun: !!req.dryRun };
}

/** Takes `name` out of the agent's MCP config, and nothing else; a config left empty is removed. */
export async function uninstallMcp(req: McpInstallRequest): Promise<McpInstallResult> {
  const { config } = await configOf(req.agent);
  const file = config.file(req.scope, { env: req.env, project: req.project });
  const before = await readText(file);
  if (before === null) return { agent: req.agent, file, action: 'absent', backup: null, dryRun: !!req.dryRun };
  let after: string | null;
  try {
    after = config.remove(before, req.name);
  } catch (e) {
    throw new RewindError(e instanceof RewindError ? e.code : 'IO', `${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (after === before) return { agent: req.agent, file, action: 'absent', backup: null, dryRun: !!req.dryRun };
  // Nothing else changed since the install: the file goes back byte for byte to what it was.
  const previous = await readText(`${file}.rewind-backup`);
  const ours = config.read(before, req.name);
  if (previous !== null && ours && config.read(previous, req.name) === null && config.add(previous, req.name, ours) === before) after = previous;
  const backup = req.dryRun ? null : await commit(file, before, after);
  return { agent: req.agent, file, action: 'removed', backup, dryRun: !!req.dryRun };
}
