import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { listCheckpoints, type CheckpointSummary } from './manifest.js';

type Marker = NonNullable<TimelinePrompt['checkpoint']>;

/**
 * Our checkpoints that were taken right before a prompt of this transcript (by the prompt hook),
 * found by the prompt's uuid or by Claude's `promptId`, which the hook sees before the uuid exists.
 */
export function promptMarkers(checkpoints: CheckpointSummary[], transcriptPath: string): (p: TimelinePrompt) => TimelinePrompt {
  const byKey = new Map<string, Marker>();
  for (const c of checkpoints) {
    const t = c.transcript;
    if (c.trigger !== 'prompt' || !t || t.transcript_path !== transcriptPath) continue;
    const v = { id: c.id, scan: c.scan, time: c.time };
    if (t.prompt_uuid) byKey.set(t.prompt_uuid, v);
    if (t.prompt_id) byKey.set(`pid:${t.prompt_id}`, v);
  }
  return (p) => ({ ...p, checkpoint: byKey.get(p.uuid) ?? (p.promptId ? byKey.get(`pid:${p.promptId}`) : undefined) ?? null });
}

/** The marker function for a timeline, from its project's store (none when the store cannot be read). */
export async function markersFor(t: Timeline): Promise<(p: TimelinePrompt) => TimelinePrompt> {
  const list = t.session.cwd ? await listCheckpoints(t.session.cwd).catch(() => []) : [];
  return promptMarkers(list, t.session.transcriptPath);
}

export async function withMarkers(t: Timeline): Promise<Timeline> {
  return { ...t, prompts: t.prompts.map(await markersFor(t)) };
}
