import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { readRestoreSession } from '../src/engine/store/restore-session.js';
import { resolveRestoreTarget, restore, type RestoreResult } from '../src/engine/store/restore.js';

/**
 * Helpers for the agents' code-store tests: real fixtures copied into a temp home with the
 * recorded project folder replaced by a temp project, and a restore through the engine as the CLI
 * and the service run it (source: the agent's own store).
 */

/** Copies a fixture folder, rewriting the recorded project path inside every text file. */
export async function copyWithProject(from: string, to: string, recordedProject: string, project: string): Promise<void> {
  await cp(from, to, { recursive: true });
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (/\.(jsonl?|json)$/.test(e.name)) await writeFile(p, (await readFile(p, 'utf8')).split(recordedProject).join(project));
    }
  };
  await walk(to);
}

/** The project's files (no `.agent`), as path -> content. */
export async function treeOf(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.agent') await walk(p);
      } else out[relative(root, p)] = await readFile(p, 'utf8');
    }
  };
  await walk(root);
  return out;
}

export async function restoreFromAgent(project: string, transcript: string, promptUuid: string, opts: { dryRun?: boolean; force?: boolean; agentRoot?: string } = {}): Promise<RestoreResult> {
  const session = await readRestoreSession(transcript);
  const target = await resolveRestoreTarget({ projectRoot: project, ref: promptUuid, source: 'agent', session, agentRoot: opts.agentRoot });
  return restore(project, target, { agentRoot: opts.agentRoot, dryRun: opts.dryRun, force: opts.force, withDiffs: true });
}
