import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { FINGERPRINT_WINDOW, hashRange } from '../io/fingerprint.js';
import type { TranscriptCursor } from '../store/manifest.js';
import type { HookPayload } from './agent-hooks.js';

/** Where the session file stands when a checkpoint is taken: its size and the hash of its tail. */
export async function transcriptCursor(p: HookPayload, agent: string, ids: { promptUuid?: string | null; promptId?: string | null }): Promise<TranscriptCursor | null> {
  if (!p.transcript_path) return null;
  const st = await stat(p.transcript_path).catch(() => null);
  let size = 0;
  let prefix = '';
  // Only a regular file is opened, and without blocking: the payload can name a FIFO, which a
  // blocking open would wait on until the agent's hook timeout. Anything else counts as no file.
  if (st?.isFile()) {
    const fh = await open(p.transcript_path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch(() => null);
    try {
      const now = await fh?.stat();
      if (fh && now?.isFile()) {
        size = now.size;
        // The same window as a fingerprint's tail: tells a rewritten transcript apart.
        prefix = await hashRange(fh, Math.max(0, size - FINGERPRINT_WINDOW), Math.min(size, FINGERPRINT_WINDOW));
      }
    } finally {
      await fh?.close();
    }
  }
  return { transcript_path: p.transcript_path, session_id: p.session_id ?? null, agent, prompt_uuid: ids.promptUuid ?? null, prompt_id: ids.promptId ?? null, byte_offset_end: size, prefix_sha256: prefix };
}
