import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import type { CheckpointSummary } from './manifest.js';

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

export function withMarkers(t: Timeline, checkpoints: CheckpointSummary[]): Timeline {
  return { ...t, prompts: t.prompts.map(promptMarkers(checkpoints, t.session.transcriptPath)) };
}
