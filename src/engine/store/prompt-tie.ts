import { join } from 'node:path';
import { appendOwnFile, readOwnText } from '../io/own-file.js';
import { checkpointsDir, type CheckpointSummary } from './manifest.js';

/**
 * Ties a checkpoint taken before a prompt was written to that prompt, once the agent has written
 * it (Qwen, Gemini and Droid name no prompt id when their turn starts). The index gets the
 * checkpoint's summary again, now naming the prompt: `listCheckpoints` keeps an id's last line,
 * so restore and the timeline's markers find it; the manifest itself is never rewritten.
 */
export async function tieToPrompt(projectRoot: string, checkpointId: string, promptUuid: string): Promise<boolean> {
  const index = join(checkpointsDir(projectRoot), 'index.jsonl');
  const raw = (await readOwnText(index).catch(() => null)) ?? '';
  const lines = raw.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    let s: CheckpointSummary;
    try {
      s = JSON.parse(lines[i]!) as CheckpointSummary;
    } catch {
      continue;
    }
    if (s.id !== checkpointId) continue;
    if (!s.transcript) return false;
    if (s.transcript.prompt_uuid === promptUuid) return true;
    await appendOwnFile(index, `${JSON.stringify({ ...s, transcript: { ...s.transcript, prompt_uuid: promptUuid } })}\n`);
    return true;
  }
  return false;
}
