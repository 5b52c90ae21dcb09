import type { CheckpointSummary } from './manifest.js';

/** A prompt of the session as the tie needs it: its id and where its line starts in the file. */
export interface OffsetPrompt {
  uuid: string;
  promptId?: string | null;
  byteOffset?: number | null;
}

/**
 * Ties, when read, the prompt checkpoints that the hook could not tie when it ran. Agents whose
 * prompt hook names no prompt id (Copilot, Qwen, Gemini, Droid) get a checkpoint that waits for its
 * prompt to be written; the hook ties it at the turn's next event. When the agent writes its
 * events late (Copilot writes a chat-only turn's prompt after its stop hook) and no later event
 * comes, the tie never happens. The checkpoint still says where the file ended when it was taken
 * (`byte_offset_end`): it belongs to the first prompt written after that, provided it is the
 * newest such checkpoint taken after the previous prompt was written. Pure: nothing is written.
 */
export function tieByOffset(list: CheckpointSummary[], transcriptPath: string, prompts: readonly OffsetPrompt[]): CheckpointSummary[] {
  const untied = list.filter((c) => isUntied(c, transcriptPath));
  if (untied.length === 0) return list;
  const placed = prompts.filter((p): p is OffsetPrompt & { byteOffset: number } => typeof p.byteOffset === 'number').sort((a, b) => a.byteOffset - b.byteOffset);
  const has = new Set(list.flatMap((c) => (c.trigger === 'prompt' && c.transcript?.transcript_path === transcriptPath ? [c.transcript.prompt_uuid, c.transcript.prompt_id ? `pid:${c.transcript.prompt_id}` : null] : [])));
  const tied = new Map<string, string>();
  let prev = -1;
  for (const p of placed) {
    const already = has.has(p.uuid) || (!!p.promptId && has.has(`pid:${p.promptId}`));
    // Taken after the previous prompt was in the file and before this one was: the newest wins.
    const mine = untied.filter((c) => {
      const at = c.transcript!.byte_offset_end!;
      return at > prev && at <= p.byteOffset;
    });
    const pick = mine[mine.length - 1];
    if (pick && !already) tied.set(pick.id, p.uuid);
    prev = p.byteOffset;
  }
  if (tied.size === 0) return list;
  return list.map((c) => (tied.has(c.id) && c.transcript ? { ...c, transcript: { ...c.transcript, prompt_uuid: tied.get(c.id)! } } : c));
}

function isUntied(c: CheckpointSummary, transcriptPath: string): boolean {
  const t = c.transcript;
  return c.trigger === 'prompt' && !!t && t.transcript_path === transcriptPath && !t.prompt_uuid && !t.prompt_id && typeof t.byte_offset_end === 'number';
}
