import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { RewindError } from '../../errors.js';
import type { CodeBefore, CodeBeforeRequest, StoredFile } from '../adapter.js';
import { insideProject, plainName, sha256 } from '../code-history-parts.js';
import { isSafeId } from '../../guard.js';

const HASH = z.string().regex(/^[0-9a-f]{64}$/);
const Manifest = z.object({
  sessionId: z.string(),
  oldestAvailableBoundaryIndex: z.number().int().nonnegative().optional(),
  boundaries: z.array(
    z.object({
      messageId: z.string(),
      timestamp: z.number(),
      files: z.array(z.object({ filePath: z.string(), contentHash: HASH, size: z.number().optional(), capturedAt: z.number().optional(), mode: z.number().optional() }).passthrough()).default([]),
      creations: z.array(z.object({ filePath: z.string(), createdAt: z.number().optional() }).passthrough()).default([]),
      deletions: z.array(z.object({ filePath: z.string(), contentHash: HASH.optional(), deletedAt: z.number().optional(), capturedAt: z.number().optional(), mode: z.number().optional() }).passthrough()).default([]),
    }).passthrough(),
  ),
}).passthrough();

/** `<root>/sessions/<cwd>/<id>.jsonl` -> `<root>`. */
const droidRootOf = (transcript: string): string => dirname(dirname(dirname(transcript)));

/** What one edit in a boundary tells about a file before it: its content, absence, or nothing usable. */
type Event = { at: number; path: string; state: { hash: string; mode: number | null } | null | 'unknown' };

async function readManifest(path: string): Promise<z.infer<typeof Manifest> | null> {
  const raw = await readFile(path, 'utf8').catch(() => null);
  if (raw === null) return null;
  try {
    return Manifest.parse(JSON.parse(raw));
  } catch {
    throw new RewindError('INVALID_TRANSCRIPT', `Droid's snapshot manifest is not in a format Rewind reads: ${path}`);
  }
}

/**
 * The manifest that speaks for a session's prompt: its own; else, for a fork (Droid's own keeps
 * the message ids and names its `parent`; Rewind's keeps them too), the parent's, else any
 * manifest naming that message.
 */
async function manifestFor(dir: string, transcript: string, sessionId: string, promptUuid: string): Promise<z.infer<typeof Manifest> | null> {
  // The id inside the file names a manifest: only an id does.
  const own = isSafeId(sessionId) ? await readManifest(join(dir, `${sessionId}.snapshots.json`)) : null;
  if (own) return own;
  const { parseDroidBuffer } = await import('./parse.js');
  const parent = parseDroidBuffer(await readFile(transcript)).head?.parent ?? null;
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.snapshots.json'));
  const order = parent ? [`${parent}.snapshots.json`, ...names.filter((n) => n !== `${parent}.snapshots.json`)] : names;
  for (const name of order) {
    if (!plainName(name)) continue;
    const m = await readManifest(join(dir, name)).catch(() => null);
    if (m?.boundaries.some((b) => b.messageId === promptUuid)) return m;
  }
  return null;
}

/**
 * Factory Droid's snapshots (`<root>/snapshots`): per user message a boundary listing each file's
 * content (by sha256, under `content/<first 2>/<other 62>`) captured before the turn's first edit of it, the
 * files the turn created and the ones it deleted. The project before a prompt is, for every file
 * an edit at or after that prompt touched, what the first such edit found.
 */
export async function droidCodeBefore(req: CodeBeforeRequest): Promise<CodeBefore | null> {
  const { readDroidTimeline } = await import('./discover.js');
  const timeline = await readDroidTimeline(req.transcriptPath);
  const prompt = timeline.prompts.find((p) => p.uuid === req.promptUuid);
  if (!prompt) throw new RewindError('NOT_FOUND', `no prompt ${req.promptUuid} in this session`);
  const root = req.agentRoot ?? droidRootOf(req.transcriptPath);
  const store = join(root, 'snapshots');
  const found = await manifestFor(join(store, 'manifests'), req.transcriptPath, timeline.session.id, req.promptUuid);
  if (!found) return null;
  const manifest = found;
  const bounds = manifest.boundaries;
  let k = bounds.findIndex((b) => b.messageId === req.promptUuid);
  // A prompt whose turn edited nothing has no boundary: the next one after it speaks for it.
  const since = prompt.timestamp ? Date.parse(prompt.timestamp) : NaN;
  if (k === -1 && !Number.isNaN(since)) k = bounds.findIndex((b) => b.timestamp >= since);
  if (k === -1) return null;
  // Boundaries Droid evicted: what they held is gone, so the store cannot answer for this prompt.
  if (k < (manifest.oldestAvailableBoundaryIndex ?? 0)) return null;
  const events: Event[] = [];
  for (const b of bounds.slice(k)) {
    const inTurn: Event[] = [];
    for (const f of b.files) inTurn.push({ at: f.capturedAt ?? b.timestamp, path: f.filePath, state: { hash: f.contentHash, mode: f.mode ?? null } });
    for (const c of b.creations) inTurn.push({ at: c.createdAt ?? b.timestamp, path: c.filePath, state: null });
    for (const d of b.deletions) inTurn.push({ at: d.deletedAt ?? d.capturedAt ?? b.timestamp, path: d.filePath, state: d.contentHash ? { hash: d.contentHash, mode: d.mode ?? null } : 'unknown' });
    events.push(...inTurn.sort((x, y) => x.at - y.at));
  }
  const cwd = timeline.session.cwd ?? req.projectRoot;
  const files = new Map<string, StoredFile | null>();
  const blobs = new Map<string, string>();
  const outside: string[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  for (const e of events) {
    if (seen.has(e.path)) continue;
    seen.add(e.path);
    const rel = insideProject(req.projectRoot, cwd, e.path);
    if (rel === null) {
      outside.push(e.path);
      continue;
    }
    if (e.state === 'unknown') {
      unknown.push(`${rel}: Droid recorded its deletion without its content`);
      continue;
    }
    if (e.state === null) {
      files.set(rel, null);
      continue;
    }
    // Git's layout: the first two hex digits name the folder, the other 62 the file.
    const blob = join(store, 'content', e.state.hash.slice(0, 2), e.state.hash.slice(2));
    const data = await readFile(blob).catch(() => {
      throw new RewindError('NOT_FOUND', `Droid's snapshot of ${rel} (${e.state === null || e.state === 'unknown' ? '' : e.state.hash.slice(0, 12)}) is missing from ${join(store, 'content')}: nothing was changed`);
    });
    if (sha256(data) !== e.state.hash) throw new RewindError('NOT_FOUND', `Droid's snapshot of ${rel} is damaged (${blob} does not match its hash): nothing was changed`);
    blobs.set(e.state.hash, blob);
    files.set(rel, { ref: e.state.hash, size: data.length, mode: e.state.mode === null ? null : e.state.mode & 0o777 });
  }
  return { files, scope: 'tracked', read: (ref) => readFile(blobs.get(ref) ?? '\0'), outside, unknown };
}
