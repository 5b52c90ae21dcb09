import { readFile } from 'node:fs/promises';
import type { TurnDetail, TurnItem } from '../adapter.js';
import { turnItem } from '../timeline-parts.js';
import { RewindError } from '../../errors.js';
import { blocksText, clip, MAX_TURN_ITEMS } from '../../turn/text.js';
import { obj, splitJsonl, str } from '../jsonl.js';
import { droidPromptText } from './parse.js';

/** One prompt's turn in a Droid session: the messages from the prompt to the next prompt. */
export async function droidTurn(path: string, promptUuid: string): Promise<TurnDetail> {
  const { lines } = splitJsonl(await readFile(path));
  const start = lines.findIndex((l) => l.value?.type === 'message' && l.value.id === promptUuid);
  if (start === -1) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const text = droidPromptText(lines[start]!.value!)?.text ?? '';
  const items: TurnItem[] = [];
  let truncated = false;
  for (const l of lines.slice(start + 1)) {
    const v = l.value;
    if (!v || v.type !== 'message') continue;
    if (droidPromptText(v)) break;
    const m = obj(v.message);
    const content = Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : [{ type: 'text', text: blocksText(m.content) }];
    for (const b of content) {
      if (items.length >= MAX_TURN_ITEMS) {
        truncated = true;
        break;
      }
      if (b.type === 'text' && m.role === 'assistant' && String(b.text ?? '').trim()) items.push(turnItem({ kind: 'text', title: 'Droid', body: clip(String(b.text)), isError: false }));
      else if (b.type === 'thinking') items.push(turnItem({ kind: 'thinking', title: 'thinking', body: clip(String(b.thinking ?? '')), isError: false }));
      else if (b.type === 'tool_use') items.push(turnItem({ kind: 'tool-call', title: str(b.name) ?? 'tool', body: clip(JSON.stringify(b.input ?? {}, null, 2)), isError: false }));
      else if (b.type === 'tool_result') items.push(turnItem({ kind: 'tool-result', title: 'result', body: clip(blocksText(b.content)), isError: b.is_error === true }));
    }
  }
  return { promptUuid, text, items, truncated, model: null, promptImages: [] };
}
