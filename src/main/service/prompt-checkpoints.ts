import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentAdapter } from '../../engine/agents/adapter.js';
import { FINGERPRINT_WINDOW, hashRange } from '../../engine/io/fingerprint.js';
import type { TranscriptCursor } from '../../engine/store/manifest.js';
import type { Timeline } from '../../shared/session-schema.js';
import { storeDir } from '../../engine/project.js';

/** A file written this recently is being written by its agent now: its last prompt is new. */
const FRESH_MS = 10_000;
/** A prompt the agent started this long ago (by its own timestamp) is not being sent now. */
const PROMPT_FRESH_MS = 60_000;

/**
 * Rewind's checkpoint at each new prompt of agents whose CLI has no hooks for Rewind (Codex):
 * when the watcher sees a session gain a prompt, the project is checkpointed under that prompt, as
 * the prompt hook does for Claude Code. Only projects that opted in (they have `.agent/rewind/`).
 * Best effort: it runs just after the agent wrote the prompt, before the model has answered in
 * practice, but a tool that runs within milliseconds could be caught in it.
 *
 * Only a prompt the agent really started now counts: one this watcher never saw in the file, whose
 * own timestamp is recent. A rewrite, an undo or a file copied into place brings back prompts of
 * another day as the file's last one: those are not new (their checkpoint would hold today's files
 * under an old prompt).
 */
export class PromptCheckpoints {
  private readonly seen = new Map<string, Set<string>>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly take: (projectRoot: string, transcript: TranscriptCursor) => Promise<unknown>) {}

  /** The watcher saw `path` change (`timeline`: its timeline, when the caller read it already); serialised per file. */
  changed(adapter: AgentAdapter, path: string, now = Date.now(), timeline?: Timeline): Promise<void> {
    if (adapter.checkpointHooks) return Promise.resolve();
    const next = (this.pending.get(path) ?? Promise.resolve()).then(() => this.check(adapter, path, now, timeline)).catch(() => undefined);
    this.pending.set(path, next);
    return next;
  }

  private async check(adapter: AgentAdapter, path: string, now: number, timeline?: Timeline): Promise<void> {
    const st = await stat(path).catch(() => null);
    if (!st) return;
    const t = timeline ?? (await adapter.timeline(path));
    const cwd = t.session.cwd;
    const prev = this.seen.get(path);
    const last = t.prompts[t.prompts.length - 1];
    const known = !!last && !!prev?.has(last.uuid);
    // Every prompt ever seen in this file stays seen: an undo puts back prompts a rewrite took out.
    const seen = prev ?? new Set<string>();
    for (const p of t.prompts) seen.add(p.uuid);
    this.seen.set(path, seen);
    if (!last || !cwd || !(await stat(storeDir(cwd)).catch(() => null))?.isDirectory()) return;
    // The agent's own hooks checkpoint this project (`rewind-app hook --agent`): theirs are exact, this one would only race them.
    if (await stat(join(storeDir(cwd), `hook-${adapter.id}.json`)).catch(() => null)) return;
    // First sight of a file: only a prompt being written now is new.
    if (prev ? known : now - st.mtimeMs > FRESH_MS) return;
    if (!startedNow(last.timestamp, now)) return;
    const fh = await open(path, 'r');
    let prefix: string;
    try {
      prefix = await hashRange(fh, Math.max(0, st.size - FINGERPRINT_WINDOW), Math.min(st.size, FINGERPRINT_WINDOW));
    } finally {
      await fh.close();
    }
    await this.take(cwd, { transcript_path: path, session_id: t.session.id, agent: adapter.id, prompt_uuid: last.uuid, prompt_id: null, byte_offset_end: st.size, prefix_sha256: prefix });
  }
}

/** The prompt's own time is now (a prompt without one is judged by the file's time alone). */
export function startedNow(timestamp: string | null, now: number): boolean {
  const t = timestamp ? Date.parse(timestamp) : NaN;
  return !Number.isFinite(t) || Math.abs(now - t) <= PROMPT_FRESH_MS;
}
