import { resolve } from 'node:path';
import type { SessionSummary } from '../../shared/session-schema.js';
import type { OpenMarker } from './adapter.js';

/** One of an agent's session files in a folder, as `attributeOpen` weighs it. */
export interface OpenCandidate {
  path: string;
  /** Its last write (ms). */
  mtimeMs: number;
  size: number;
}

/** A process's start time read to the second (Linux's boot clock): a write this much before it still counts as after. */
const START_SLACK_MS = 2000;

/**
 * Which session each process of an agent that marks none (Gemini CLI, Droid: FORMATS.md §2d) has
 * open, among that agent's session files in the process's folder: the one it last wrote since it
 * started. A file still exactly as Rewind wrote it (a fork, an in-place rewrite, an undo:
 * `rewindWrote`, path → size) is never one (the agent did not write it), nor a file an exact
 * marker already names (`taken`). A process that wrote nothing since it started has none of them
 * open; one whose start is unknown, the folder's newest the agent wrote. Several processes in one
 * folder: the latest started takes the newest file it could have written, the next the next one.
 */
export function attributeOpen(markers: OpenMarker[], candidates: OpenCandidate[], rewindWrote: ReadonlyMap<string, number> = new Map(), taken: ReadonlySet<string> = new Set()): Map<OpenMarker, string> {
  const theirs = candidates
    .filter((c) => !taken.has(resolve(c.path)) && rewindWrote.get(resolve(c.path)) !== c.size)
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  const startOf = (m: OpenMarker) => (m.since === null ? null : Date.parse(m.since));
  const order = [...markers].sort((a, b) => (startOf(b) ?? -Infinity) - (startOf(a) ?? -Infinity));
  const out = new Map<OpenMarker, string>();
  const used = new Set<string>();
  for (const m of order) {
    const start = startOf(m);
    const pool = theirs.filter((c) => start === null || Number.isNaN(start) || c.mtimeMs >= start - START_SLACK_MS);
    const pick = pool.find((c) => !used.has(c.path)) ?? pool[0];
    if (!pick) continue;
    used.add(pick.path);
    out.set(m, pick.path);
  }
  return out;
}

/** `attributeOpen` over an agent's listed sessions of one folder: session path → the marker that has it open. */
export function looseOpen(markers: OpenMarker[], loose: OpenMarker[], listed: Pick<SessionSummary, 'id' | 'transcriptPath' | 'lastActivity' | 'sizeBytes'>[], wrote: ReadonlyMap<string, number>): Map<string, OpenMarker> {
  const exactIds = new Set(markers.map((m) => m.sessionId).filter((x): x is string => x !== null));
  const taken = new Set(listed.filter((s) => exactIds.has(s.id)).map((s) => resolve(s.transcriptPath)));
  const candidates = listed.map((s) => ({ path: resolve(s.transcriptPath), mtimeMs: Date.parse(s.lastActivity), size: s.sizeBytes }));
  const out = new Map<string, OpenMarker>();
  for (const [m, p] of attributeOpen(loose, candidates, wrote, taken)) if (!out.has(p)) out.set(p, m);
  return out;
}
