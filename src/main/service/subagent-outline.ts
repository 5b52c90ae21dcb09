import { readLines } from '../../engine/io/read-lines.js';
import type { SubagentRun } from '../../engine/claude/model.js';
import type { TurnItem } from '../../shared/contract.js';
import { TurnItemsBuilder } from './turn-items.js';

/** A subagent's steps shown in the pane: enough to follow it, never its whole log. */
const MAX_STEPS = 200;

/**
 * What a subagent did, from its own transcript: what it was asked, what it said and each tool call
 * with its result, as a nested conversation. Read when the user opens the turn, never kept.
 */
export async function subagentConversation(run: SubagentRun): Promise<NonNullable<TurnItem['subagent']>> {
  const base = { agentType: run.agentType, description: run.description, messageCount: run.messageCount };
  if (!run.transcriptPath) return { ...base, model: null, items: [], truncated: false, note: 'Its messages are inline in this transcript; their steps are not shown here.' };
  const b = new TurnItemsBuilder(MAX_STEPS);
  let asked = false;
  const entries: { e: Record<string, unknown>; prompt: boolean }[] = [];
  try {
    await readLines(run.transcriptPath, (line) => {
      if (b.truncated) return;
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(line.bytes.toString('utf8')) as Record<string, unknown>;
      } catch {
        return;
      }
      if ((e.type !== 'user' && e.type !== 'assistant') || e.isMeta === true) return;
      // Its first user message is the task it was given.
      const prompt = e.type === 'user' && !asked;
      if (prompt) asked = true;
      entries.push({ e, prompt });
    });
  } catch {
    return { ...base, model: null, items: [], truncated: false, note: 'Its transcript could not be read.' };
  }
  for (const { e, prompt } of entries) await b.add(e, { prompt });
  return { ...base, model: b.model, items: b.items, truncated: b.truncated, note: null };
}
