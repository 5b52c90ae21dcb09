import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { readRestoreSession } from '../src/engine/store/restore-session.js';
import { resolveRestoreTarget, restore, type RestoreResult } from '../src/engine/store/restore.js';
import { FIXTURES, tempDir } from './fixtures.js';

/**
 * Helpers for the agents' code-store tests: real fixtures copied into a temp home with the
 * recorded project folder replaced by a temp project, and a restore through the engine as the CLI
 * and the service run it (source: the agent's own store).
 */

/** Is git on this machine? Gemini's checkpoints are a git repository, read with git itself. */
export function hasGit(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

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

/**
 * The project's files (no `.agent`), as path -> content. A file that vanishes between the listing
 * and the read (a restore's staged temp file, renamed while a poll looks) is left out, not fatal.
 */
export async function treeOf(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const gone = (e: unknown) => {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  };
  const walk = async (d: string): Promise<void> => {
    for (const e of (await readdir(d, { withFileTypes: true }).catch(gone)) ?? []) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.agent') await walk(p);
      } else {
        const text = await readFile(p, 'utf8').catch(gone);
        if (text !== null) out[relative(root, p)] = text;
      }
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

export const DROID_SID = '6051d471-5227-4553-b05b-88838ef014de';
export const QWEN_SID = 'e217908e-90f9-463a-8526-e6d70c1a6d5c';
const QWEN_REC = join(FIXTURES, 'qwen-real', 'native-rewind');

/** Droid's real recorded home (session + snapshots) with its project at a temp folder, left as the session ended. */
export async function droidHome() {
  const home = await tempDir('droid-code-');
  const project = join(home, 'proj');
  await mkdir(project);
  const root = join(home, '.factory');
  const dir = join(root, 'sessions', '-proj');
  await copyWithProject(join(FIXTURES, 'droid-real', 'native-rewind'), join(home, 'rec'), '/home/dev/projects/proj', project);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${DROID_SID}.jsonl`), await readFile(join(home, 'rec', `${DROID_SID}.jsonl`)));
  const { cp } = await import('node:fs/promises');
  await cp(join(home, 'rec', 'snapshots'), join(root, 'snapshots'), { recursive: true });
  await writeFile(join(project, 'a.txt'), 'version two\n');
  await writeFile(join(project, 'b.txt'), 'bee\n');
  return { root, project, transcript: join(dir, `${DROID_SID}.jsonl`), manifest: join(root, 'snapshots', 'manifests', `${DROID_SID}.snapshots.json`) };
}

/**
 * Qwen's real recorded session and file history. `beforeNativeRewind`: the session as it was
 * before Qwen's own /rewind (its lines up to the rewind record), with the files as #3 left them.
 */
export async function qwenHome(opts: { beforeNativeRewind: boolean }) {
  const home = await tempDir('qwen-code-');
  const project = join(home, 'proj');
  await mkdir(project);
  const root = join(home, '.qwen');
  const chats = join(root, 'projects', '-proj', 'chats');
  await mkdir(chats, { recursive: true });
  let text = (await readFile(join(QWEN_REC, `${QWEN_SID}.jsonl`), 'utf8')).split('/home/dev/projects/proj').join(project);
  if (opts.beforeNativeRewind) text = text.slice(0, text.indexOf('{"uuid":"079c40c4'));
  const transcript = join(chats, `${QWEN_SID}.jsonl`);
  await writeFile(transcript, text);
  await cp(join(QWEN_REC, 'file-history'), join(root, 'file-history'), { recursive: true });
  if (opts.beforeNativeRewind) {
    await writeFile(join(project, 'a.txt'), 'version two\n');
    await writeFile(join(project, 'b.txt'), 'bee\n');
  } else {
    // What Qwen's own rewind left: a.txt put back, b.txt (created after the target) still there.
    await writeFile(join(project, 'a.txt'), 'version one\n');
    await writeFile(join(project, 'b.txt'), 'bee\n');
    await writeFile(join(project, 'd.txt'), 'after native rewind\n');
  }
  return { root, project, transcript, backups: join(root, 'file-history', QWEN_SID) };
}
