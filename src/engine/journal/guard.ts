import { basename, dirname, join, resolve } from 'node:path';
import { RewindError } from '../errors.js';
import { requireId, requireInside } from '../guard.js';
import type { JournalRecord } from './record.js';
import { storeDir } from '../project.js';

/**
 * A journal can arrive with a cloned repository: before undo acts on a record, every path it names
 * must be where that kind of record can point. Transcripts live in an agent's config root (or the
 * project); backups in the project's own store; a fork is a session file there named with its id;
 * linked file history is `<agent root>/file-history/<fork id>`.
 */
/** Is `path` `<file>#<id>` naming this id (a session in an agent's database)? */
const storeRefOf = (path: string, id: string): boolean => path.endsWith(`#${id}`) && path.length > id.length + 1;

export async function validateRecord(projectRoot: string, r: JournalRecord, agentRoots: string[]): Promise<void> {
  const transcriptRoots = [...agentRoots, projectRoot];
  const bad = (why: string) => new RewindError('UNSAFE_PATH', `journal record ${r.id} is not one Rewind wrote (${why}): refusing it, nothing was written`);
  if (r.kind === 'fork' || r.kind === 'in-place') {
    requireId(r.sessionId, 'a journal record with a session id');
    await requireInside(transcriptRoots, r.transcript, 'a journal record naming a transcript', 'if Rewind wrote it, pass the agent\'s config folder with --claude-dir');
    // A session in an agent's database is named `<store>#<its id>` (sqlite-sessions.ts).
    if (!r.transcript.endsWith('.jsonl') && !storeRefOf(r.transcript, r.sessionId)) throw bad('its transcript is not a .jsonl file');
  }
  if (r.kind === 'fork' && storeRefOf(r.forkPath, r.forkSessionId)) {
    requireId(r.forkSessionId, 'a journal record with a fork id');
    await requireInside(transcriptRoots, r.forkPath, 'a journal record naming a fork');
    if (!storeRefOf(r.transcript, r.sessionId) || r.forkPath.slice(0, r.forkPath.lastIndexOf('#')) !== r.transcript.slice(0, r.transcript.lastIndexOf('#'))) throw bad('its fork is not a session of the same store');
    return;
  }
  if (r.kind === 'fork') {
    requireId(r.forkSessionId, 'a journal record with a fork id');
    // Each agent files its forks its own way (beside the original, or by date): the fork must be a
    // session file where sessions live, named with its own id.
    await requireInside(transcriptRoots, r.forkPath, 'a journal record naming a fork');
    // Gemini CLI names a session file by the first 8 characters of its id (`session-<time>-<id8>.jsonl`).
    // Copilot CLI names the session's folder by its id (`session-state/<id>/events.jsonl`).
    const named = basename(r.forkPath).includes(r.forkSessionId) || basename(r.forkPath).endsWith(`-${r.forkSessionId.slice(0, 8)}.jsonl`) || basename(dirname(r.forkPath)) === r.forkSessionId;
    if (!r.forkPath.endsWith('.jsonl') || !named) throw bad('its fork is not a session file named by its id');
    if (r.fileHistoryDir !== null) {
      await requireInside(agentRoots, r.fileHistoryDir, 'a journal record naming file history');
      if (basename(r.fileHistoryDir) !== r.forkSessionId || basename(dirname(r.fileHistoryDir)) !== 'file-history') throw bad("its file history is not the fork's own");
    }
  }
  if (r.kind === 'in-place') {
    const backups = join(storeDir(resolve(projectRoot)), 'transcript-backup');
    await requireInside([backups], r.backupPath, 'a journal record naming a backup');
    if (dirname(resolve(r.backupPath)) !== backups) throw bad('its backup is not in transcript-backup/');
  }
  if ((r.kind === 'restore' || r.kind === 'revert') && r.projectRoot !== undefined && resolve(r.projectRoot) !== resolve(projectRoot)) throw bad('it names another project');
}
