import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RewindError } from '../errors.js';
import type { CodeBefore, CodeBeforeRequest } from './adapter.js';
import { shadowSnapshotFiles } from './code-history-parts.js';
import { readSqliteWith } from '../io/sqlite-read.js';
import { str } from './jsonl.js';
import { refOrThrow, sessionRows, type MessageRow, type StoreSpec } from './sqlite-sessions.js';

/**
 * The agent's own file snapshots for an OpenCode-style store (OpenCode, Kilo; FORMATS.md §2e): at
 * the start of every model step the agent writes the whole worktree into a shadow git
 * (`<data dir>/snapshot/<project id>/<sha1(worktree)>/`, git projects only) as a tree object and
 * names it in the step's `step-start` part. The project before a prompt is the snapshot of the first
 * step of that prompt's turn: taken after the prompt was sent, before any tool ran. Read with git's
 * plumbing only; nothing is written there.
 */

/** The tree hash of the first step of the prompt's turn (pure); null when its turn took none (no git, snapshots off, no reply). */
export function snapshotOfPrompt(messages: MessageRow[], promptUuid: string): string | null {
  const at = messages.findIndex((m) => m.id === promptUuid);
  if (at === -1) return null;
  for (const m of messages.slice(at + 1)) {
    if (m.data.role === 'user') break;
    if (m.data.role !== 'assistant') continue;
    const parent = str(m.data.parentID);
    if (parent && parent !== promptUuid) continue;
    for (const p of m.parts) {
      const hash = p.type === 'step-start' ? str(p.snapshot) : null;
      if (hash && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(hash)) return hash;
    }
  }
  return null;
}

interface SnapshotPlace {
  snapshot: string | null;
  projectId: string | null;
  worktree: string | null;
  directory: string | null;
}

function placeOf(spec: StoreSpec, db: string, id: string, promptUuid: string): Promise<SnapshotPlace> {
  return readSqliteWith(db, (s) => {
    const rows = sessionRows(s, id);
    if (!rows) throw new RewindError('NOT_FOUND', `no ${spec.name} session ${id} in ${db}`);
    if (!rows.messages.some((m) => m.id === promptUuid)) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
    const session = s.all('select project_id from session where id = ?', [id])[0];
    const projectId = str(session?.project_id);
    const project = projectId ? s.all('select worktree from project where id = ?', [projectId])[0] : undefined;
    return { snapshot: snapshotOfPrompt(rows.messages, promptUuid), projectId, worktree: str(project?.worktree), directory: rows.session.directory };
  });
}

/**
 * The shadow git of a project: `snapshot/<project id>/<sha1 of the worktree path>` as the agent names
 * it; when the worktree moved (or the store was copied from another machine) and the project has
 * one shadow git only, that one (a tree hash names its content, so a wrong repository cannot
 * answer with other files: it lacks the object).
 */
async function shadowGitOf(dataDir: string, projectId: string, worktree: string | null): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]+$/.test(projectId)) return null;
  const base = join(dataDir, 'snapshot', projectId);
  if (worktree) {
    const named = join(base, createHash('sha1').update(worktree).digest('hex'));
    if (existsSync(named)) return named;
  }
  const dirs = (await readdir(base, { withFileTypes: true }).catch(() => [])).filter((d) => d.isDirectory());
  return dirs.length === 1 ? join(base, dirs[0]!.name) : null;
}

export async function storeCodeBefore(spec: StoreSpec, req: CodeBeforeRequest): Promise<CodeBefore | null> {
  const { db, id } = refOrThrow(req.transcriptPath);
  const place = await placeOf(spec, db, id, req.promptUuid);
  if (!place.snapshot || !place.projectId) return null;
  const gitDir = await shadowGitOf(dirname(db), place.projectId, place.worktree);
  if (!gitDir) return null;
  const who = `${spec.name}'s snapshot`;
  // The snapshot's paths are relative to the worktree (the repository's root), not the session's folder.
  const worktree = place.worktree && existsSync(place.worktree) ? place.worktree : (place.directory ?? req.projectRoot);
  const { files, byRef, outside, other } = await shadowSnapshotFiles(gitDir, place.snapshot, who, req.projectRoot, worktree);
  const unknown = other.map((p) => `${p}: a link or submodule in ${who}, left as it is`);
  // The snapshot is the whole worktree: it speaks for every file only when that is the project.
  const whole = worktree === req.projectRoot;
  if (!whole) unknown.push(`${spec.name}'s snapshot is of ${worktree}, not ${req.projectRoot}: only the files it holds are restored (files created since are kept)`);
  return { files, scope: whole ? 'tree' : 'tracked', read: async (ref) => byRef.get(ref) ?? Buffer.alloc(0), outside, unknown };
}
