import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { RewindError } from '../errors.js';

/**
 * Reads an agent's shadow git (a repository the agent keeps beside the project to snapshot it)
 * with git's own read-only plumbing (`ls-tree`, `cat-file --batch`), never writing into it (no work tree, no index, no optional locks). The agents make those
 * repositories with the git binary and keep snapshots only when it is installed, so git is there
 * wherever a shadow repository is; a pure-JS reader would have to handle packfiles and deltas for
 * no gain. `who` names the record in messages (e.g. "<Agent>'s checkpoint").
 */

function git(gitDir: string, args: string[], input: string | undefined, who: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // No config, hooks or locks of the user's: a plain read of the object database.
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' };
    // The agent's config may name the project as the work tree (core.worktree): once the project is
    // moved or deleted git refuses to start, so a folder that always exists is named instead.
    // ls-tree and cat-file never read or write a work tree.
    const child = spawn('git', ['--git-dir', gitDir, '--work-tree', tmpdir(), ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) => reject(e.code === 'ENOENT' ? new RewindError('UNSUPPORTED', `cannot read ${who}: git not found`) : e));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(Buffer.concat(err).toString('utf8').trim().split('\n')[0] || `git exited with ${code}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

export interface ShadowEntry {
  path: string;
  mode: number;
  blob: string;
}

/** The files of a snapshot commit or tree (regular and executable files; links and submodules are listed apart). */
export async function readSnapshot(gitDir: string, commit: string, who: string): Promise<{ files: ShadowEntry[]; other: string[] }> {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) throw new RewindError('INVALID_TRANSCRIPT', `${who} names an object that is not one: "${commit.slice(0, 80)}"`);
  const raw = await git(gitDir, ['ls-tree', '-r', '-z', '--full-tree', commit], undefined, who).catch((e: unknown) => {
    if (e instanceof RewindError) throw e;
    throw new RewindError('NOT_FOUND', `${who} ${commit.slice(0, 12)} is missing from ${gitDir}: nothing was changed`);
  });
  const files: ShadowEntry[] = [];
  const other: string[] = [];
  for (const rec of raw.toString('utf8').split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    const [mode, type, blob] = rec.slice(0, tab).split(' ');
    const path = rec.slice(tab + 1);
    if (type === 'blob' && (mode === '100644' || mode === '100755')) files.push({ path, mode: parseInt(mode.slice(3), 8), blob: blob! });
    else other.push(path);
  }
  return { files, other };
}

/** Blob contents by id, in one `cat-file --batch`. */
export async function readBlobs(gitDir: string, blobs: string[], who: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const want = [...new Set(blobs)];
  if (want.length === 0) return out;
  const raw = await git(gitDir, ['cat-file', '--batch'], want.map((b) => `${b}\n`).join(''), who);
  let at = 0;
  for (const id of want) {
    const nl = raw.indexOf(0x0a, at);
    const head = raw.subarray(at, nl).toString('utf8').split(' ');
    if (head[1] !== 'blob') throw new RewindError('NOT_FOUND', `${who}: the shadow git lacks the content ${id.slice(0, 12)}: nothing was changed`);
    const size = Number(head[2]);
    out.set(id, raw.subarray(nl + 1, nl + 1 + size));
    at = nl + 1 + size + 1;
  }
  return out;
}
