import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { RewindError } from '../../errors.js';
import type { CodeBefore, CodeBeforeRequest, StoredFile } from '../adapter.js';
import { insideProject, sha256 } from '../code-history-parts.js';

const HASH = z.string().regex(/^[0-9a-f]{64}$/);
const Image = z.object({ kind: z.string(), contentHash: HASH.optional(), backupFile: HASH.optional(), mode: z.number().int().optional() }).passthrough();
const Index = z.object({
  snapshots: z.array(z.object({ eventId: z.string(), files: z.record(z.string(), z.object({ path: z.string(), preimage: Image }).passthrough()).default({}) }).passthrough()),
}).passthrough();

async function readIndex(path: string): Promise<z.infer<typeof Index> | null> {
  const raw = await readFile(path, 'utf8').catch(() => null);
  if (raw === null) return null;
  try {
    return Index.parse(JSON.parse(raw));
  } catch {
    throw new RewindError('INVALID_TRANSCRIPT', `Copilot's file snapshots are not in a format Rewind reads: ${path}`);
  }
}

/**
 * GitHub Copilot CLI's own file snapshots (`session-state/<id>/rewind-file-snapshots/`, what its
 * /rewind restores): `index.json` holds one snapshot per prompt (`eventId` = the prompt's
 * `user.message` id) with each file the turn changed as it found it (`preimage`: its content by
 * sha256 under `backups/`, or `absent`), shell-made files included. The project before a prompt is,
 * for every file a turn at or after it changed, what the first such turn found. Snapshots of
 * prompts no longer in the file (cut by a rewind) are not read.
 */
export async function copilotCodeBefore(req: CodeBeforeRequest): Promise<CodeBefore | null> {
  const { readCopilotTimeline } = await import('./discover.js');
  const timeline = await readCopilotTimeline(req.transcriptPath);
  const at = timeline.prompts.findIndex((p) => p.uuid === req.promptUuid);
  if (at === -1) throw new RewindError('NOT_FOUND', `no prompt ${req.promptUuid} in this session`);
  const store = join(dirname(req.transcriptPath), 'rewind-file-snapshots');
  const index = await readIndex(join(store, 'index.json'));
  if (!index) return null;
  const byPrompt = new Map(index.snapshots.map((s) => [s.eventId, s]));
  const from = timeline.prompts.slice(at).map((p) => byPrompt.get(p.uuid)).filter((s) => s !== undefined);
  if (from.length === 0) return null;
  const cwd = timeline.session.cwd ?? req.projectRoot;
  const files = new Map<string, StoredFile | null>();
  const blobs = new Map<string, string>();
  const outside: string[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  for (const snap of from) {
    for (const f of Object.values(snap.files)) {
      if (seen.has(f.path)) continue;
      seen.add(f.path);
      const rel = insideProject(req.projectRoot, cwd, f.path);
      if (rel === null) {
        outside.push(f.path);
        continue;
      }
      const pre = f.preimage;
      if (pre.kind === 'absent') {
        files.set(rel, null);
        continue;
      }
      const hash = pre.contentHash ?? pre.backupFile;
      if (pre.kind !== 'content' || !hash) {
        unknown.push(`${rel}: Copilot recorded it as ${pre.kind} without its content`);
        continue;
      }
      const blob = join(store, 'backups', hash);
      const data = await readFile(blob).catch(() => {
        throw new RewindError('NOT_FOUND', `Copilot's snapshot of ${rel} (${hash.slice(0, 12)}) is missing from ${join(store, 'backups')}: nothing was changed`);
      });
      if (sha256(data) !== hash) throw new RewindError('NOT_FOUND', `Copilot's snapshot of ${rel} is damaged (${blob} does not match its hash): nothing was changed`);
      const ref = sha256(data);
      blobs.set(ref, blob);
      files.set(rel, { ref, size: data.length, mode: pre.mode === undefined ? null : pre.mode & 0o777 });
    }
  }
  return { files, scope: 'tracked', read: (ref) => readFile(blobs.get(ref) ?? '\0'), outside, unknown };
}
