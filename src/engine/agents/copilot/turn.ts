import { readFile } from 'node:fs/promises';
import type { TurnDetail, TurnItem } from '../adapter.js';
import { turnItem } from '../timeline-parts.js';
import { RewindError } from '../../errors.js';
import { clip, MAX_TURN_ITEMS } from '../../turn/text.js';
import { obj, splitJsonl, str } from '../jsonl.js';
import { copilotPromptText } from './parse.js';

/** A tool's result as Copilot recorded it: its text for the model, or its error. */
function resultText(d: Record<string, unknown>): { body: string; isError: boolean } {
  if (d.success === false) return { body: str(obj(d.error).message) ?? 'failed', isError: true };
  return { body: str(obj(d.result).content) ?? '', isError: false };
}

/** One prompt's turn in a Copilot session: the events from the prompt to the next prompt. */
export async function copilotTurn(path: string, promptUuid: string): Promise<TurnDetail> {
  const { lines } = splitJsonl(await readFile(path));
  const start = lines.findIndex((l) => l.value?.id === promptUuid && copilotPromptText(l.value));
  if (start === -1) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const text = copilotPromptText(lines[start]!.value!)?.text ?? '';
  const items: TurnItem[] = [];
  let truncated = false;
  let model: string | null = null;
  const push = (i: TurnItem) => {
    if (items.length >= MAX_TURN_ITEMS) truncated = true;
    else items.push(i);
  };
  for (const l of lines.slice(start + 1)) {
    const v = l.value;
    if (!v || v.agentId !== undefined) continue;
    if (copilotPromptText(v)) break;
    const d = obj(v.data);
    if (v.type === 'assistant.reasoning' && str(d.content)?.trim()) push(turnItem({ kind: 'thinking', title: 'thinking', body: clip(str(d.content)!) }));
    else if (v.type === 'assistant.message') {
      model = str(d.model) ?? model;
      if (str(d.reasoningText)?.trim()) push(turnItem({ kind: 'thinking', title: 'thinking', body: clip(str(d.reasoningText)!) }));
      if (str(d.content)?.trim()) push(turnItem({ kind: 'text', title: 'Copilot', body: clip(str(d.content)!) }));
      for (const r of Array.isArray(d.toolRequests) ? d.toolRequests.map(obj) : []) push(turnItem({ kind: 'tool-call', title: str(r.name) ?? 'tool', body: clip(JSON.stringify(r.arguments ?? {}, null, 2)) }));
    } else if (v.type === 'tool.execution_complete') {
      const r = resultText(d);
      push(turnItem({ kind: 'tool-result', title: 'result', body: clip(r.body), isError: r.isError }));
    }
  }
  return { promptUuid, text, items, truncated, model, promptImages: [] };
}
