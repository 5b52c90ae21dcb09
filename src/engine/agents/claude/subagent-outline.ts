import { readLines } from '../../io/read-lines.js';
import type { SubagentRun } from './model.js';
import type { TurnItem } from '../../../shared/contract.js';
import { TurnItemsBuilder } from './turn-items.js';

/** A subagent's steps shown in the pane: enough to follow it, never its whole log. */
export const MAX_SUBAGENT_STEPS = 200;
/** Stops the read early: a long subagent's file is not read past what is shown. */
const STOP = Symbol('enough');

/**
 * What a subagent did, from its own transcript: what it was asked, what it said and each tool call
 * with its result, as a nested conversation of at most `maxSteps` items. Read when the user opens
 * the turn, never kept.
 */
export async function subagentConversation(run: SubagentRun, maxSteps = MAX_SUBAGENT_STEPS): Promise<NonNullable<TurnItem['subagent']>> {
  const base = { agentType: run.agentType, description: run.description, messageCount: run.messageCount };
  if (!run.transcriptPath) return { ...base, model: null, items: [], truncated: false, note: 'Its messages are inline in this transcript; their steps are not shown here.' };
  if (maxSteps <= 0) return { ...base, model: null, items: [], truncated: true, note: 'This turn already shows many subagent steps; this one’s are in its own transcript.' };
  const b = new TurnItemsBuilder(maxSteps);
  const entries: { e: Record<string, unknown>; prompt: boolean }[] = [];
  let more = false;
  let asked = false;
  try {
    await readLines(run.transcriptPath, (line) => {
      let e: Record<string, unknown>;
      try {
        e = JSON.parse(line.bytes.toString('utf8')) as Record<string, unknown>;
      } catch {
        return;
      }
      if ((e.type !== 'user' && e.type !== 'assistant') || e.isMeta === true) return;
      // An entry gives at least one item or pairs a result: past twice the steps, the rest is not shown.
      if (entries.length >= maxSteps * 2) {
        more = true;
        throw STOP;
      }
      // Its first user message is the task it was given.
      const prompt = e.type === 'user' && !asked;
      if (prompt) asked = true;
      entries.push({ e, prompt });
    });
  } catch (err) {
    if (err !== STOP) return { ...base, model: null, items: [], truncated: false, note: 'Its transcript could not be read.' };
  }
  for (const { e, prompt } of entries) await b.add(e, { prompt });
  return { ...base, model: b.model, items: b.items, truncated: b.truncated || more, note: null };
}
