import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RewindError } from '../../errors.js';
import type { CodeBefore, CodeBeforeRequest, StoredFile } from '../adapter.js';
import { insideProject, plainName, sha256, trackedBefore } from '../code-history-parts.js';
import { requireId } from '../../guard.js';
import { obj, str } from '../jsonl.js';
import { qwenModel, qwenPromptText, qwenTimeline, type QwenModel } from './parse.js';

interface Backup {
  backupFileName: string | null;
}

/** `<root>/projects/<cwd>/chats/<id>.jsonl` -> `<root>`, when the session sits in Qwen's layout. */
export function qwenRootOf(transcript: string): string | null {
  const parts = transcript.split(/[\\/]/);
  if (parts.length < 5 || parts[parts.length - 2] !== 'chats' || parts[parts.length - 4] !== 'projects') return null;
  return parts.slice(0, -4).join('/') || '/';
}

/**
 * Each prompt's tracked files as Qwen's `file_history_snapshot` records left them: a snapshot is
 * named `<session>########<n>` and updated as the turn first edits each file; the prompt it
 * belongs to is the human prompt above the record that first names it.
 */
function snapshotsByPrompt(m: QwenModel): Map<string, Map<string, Backup>> {
  const owner = new Map<string, string>();
  const latest = new Map<string, Map<string, Backup>>();
  const promptAbove = (uuid: string | null): string | null => {
    let cur = uuid ? m.byUuid.get(uuid) : undefined;
    for (let hops = 0; cur && hops < 100_000; hops++) {
      if (cur.line.value && qwenPromptText(cur.line.value)) return cur.uuid;
      cur = cur.parentUuid ? m.byUuid.get(cur.parentUuid) : undefined;
    }
    return null;
  };
  for (const r of m.records) {
    const v = r.line.value;
    if (!v || v.type !== 'system' || v.subtype !== 'file_history_snapshot') continue;
    const snaps = obj(v.systemPayload).snapshots;
    if (!Array.isArray(snaps)) continue;
    for (const s of snaps) {
      const id = str(obj(s).promptId);
      if (!id) continue;
      if (!owner.has(id)) {
        const p = promptAbove(r.uuid);
        if (p) owner.set(id, p);
      }
      const files = new Map<string, Backup>();
      for (const [path, b] of Object.entries(obj(obj(s).trackedFileBackups))) {
        const name = obj(b).backupFileName;
        if (name === null || typeof name === 'string') files.set(path, { backupFileName: name });
      }
      latest.set(id, files);
    }
  }
  const out = new Map<string, Map<string, Backup>>();
  for (const [id, files] of latest) {
    const p = owner.get(id);
    if (p && !out.has(p)) out.set(p, files);
  }
  return out;
}

/**
 * Qwen Code's file history (`<root>/file-history/<session>/<hash16>@v<n>`), read as Claude's is:
 * each tracked file as the prompt found it. Unlike Qwen's own rewind, a file first created after
 * the prompt (a null backup) is deleted.
 */
export async function qwenCodeBefore(req: CodeBeforeRequest): Promise<CodeBefore | null> {
  const buf = await readFile(req.transcriptPath);
  const m = qwenModel(buf);
  const timeline = qwenTimeline(buf, req.transcriptPath);
  const prompt = timeline.prompts.find((p) => p.uuid === req.promptUuid);
  if (!prompt) throw new RewindError('NOT_FOUND', `no prompt ${req.promptUuid} in this session`);
  if (!prompt.active) throw new RewindError('NO_CHECKPOINT', `prompt ${req.promptUuid} is on a dead branch: Qwen's file history only follows the live path`);
  const byPrompt = snapshotsByPrompt(m);
  if (!byPrompt.has(req.promptUuid)) return null;
  const live = timeline.prompts.filter((p) => p.active).map((p) => p.uuid);
  const backups = trackedBefore(live, (p) => byPrompt.get(p) ?? new Map<string, Backup>(), req.promptUuid)!;
  const root = req.agentRoot ?? qwenRootOf(req.transcriptPath);
  if (!root || !m.sessionId) return null;
  // The id inside the file names a folder: an id, or no folder is read.
  const dir = join(root, 'file-history', requireId(m.sessionId, "Qwen's file history of a session id"));
  // Tracked paths are relative to the session's folder; a copied session's folder is the project given.
  const cwd = m.cwd && existsSync(m.cwd) ? m.cwd : req.projectRoot;
  const files = new Map<string, StoredFile | null>();
  const blobs = new Map<string, string>();
  const outside: string[] = [];
  for (const [tracked, b] of backups) {
    const rel = insideProject(req.projectRoot, cwd, tracked);
    if (rel === null) {
      outside.push(tracked);
      continue;
    }
    if (b.backupFileName === null) {
      files.set(rel, null);
      continue;
    }
    if (!plainName(b.backupFileName)) throw new RewindError('INVALID_TRANSCRIPT', `Qwen's file history names a backup that is not a plain file name for ${rel}: nothing was changed`);
    const file = join(dir, b.backupFileName);
    const data = await readFile(file).catch(() => {
      throw new RewindError('NOT_FOUND', `Qwen's backup ${b.backupFileName} of ${rel} is missing from ${dir}: nothing was changed`);
    });
    const ref = sha256(data);
    blobs.set(ref, file);
    files.set(rel, { ref, size: data.length, mode: null });
  }
  return { files, scope: 'tracked', read: (ref) => readFile(blobs.get(ref) ?? '\0'), outside, unknown: [] };
}
