import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { listCheckpoints, type CheckpointSummary } from './manifest.js';
import { takenLater } from '../../shared/checkpoint-time.js';
import { tieByOffset, type OffsetPrompt } from './untied-prompts.js';

type Marker = NonNullable<TimelinePrompt['checkpoint']>;

/**
 * Our checkpoints that were taken right before a prompt of this transcript (by the prompt hook or
 * the window's watcher), found by the prompt's uuid or by Claude's `promptId`, which the hook sees
 * before the uuid exists. A checkpoint taken long after the prompt's own time is marked `later`
 * (the project as it was then); one taken before it wins over it.
 */
export function promptMarkers(all: CheckpointSummary[], transcriptPath: string, prompts: readonly OffsetPrompt[] = []): (p: TimelinePrompt) => TimelinePrompt {
  // A checkpoint whose prompt was written after the hook's last event is tied here (untied-prompts.ts).
  const checkpoints = tieByOffset(all, transcriptPath, prompts);
  const byKey = new Map<string, Marker[]>();
  const add = (k: string, v: Marker) => byKey.set(k, [...(byKey.get(k) ?? []), v]);
  for (const c of checkpoints) {
    const t = c.transcript;
    if (c.trigger !== 'prompt' || !t || t.transcript_path !== transcriptPath) continue;
    const v = { id: c.id, scan: c.scan, time: c.time };
    if (t.prompt_uuid) add(t.prompt_uuid, v);
    if (t.prompt_id) add(`pid:${t.prompt_id}`, v);
  }
  return (p) => {
    const all = [...(byKey.get(p.uuid) ?? []), ...(p.promptId ? (byKey.get(`pid:${p.promptId}`) ?? []) : [])];
    if (all.length === 0) return { ...p, checkpoint: null };
    // The newest taken before the prompt; else the earliest taken later, marked so.
    const before = all.filter((m) => !takenLater(p.timestamp, m.time));
    const pick = before.length ? before[before.length - 1]! : { ...[...all].sort((x, y) => x.time.localeCompare(y.time))[0]!, later: true };
    return { ...p, checkpoint: pick };
  };
}

/** The marker function for a timeline, from its project's store (none when the store cannot be read). */
export async function markersFor(t: Timeline): Promise<(p: TimelinePrompt) => TimelinePrompt> {
  const list = t.session.cwd ? await listCheckpoints(t.session.cwd).catch(() => []) : [];
  return promptMarkers(list, t.session.transcriptPath, t.prompts);
}

export async function withMarkers(t: Timeline): Promise<Timeline> {
  return { ...t, prompts: t.prompts.map(await markersFor(t)) };
}
