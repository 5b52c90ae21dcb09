import { readFile } from 'node:fs/promises';
import type { TurnDetail, TurnItem } from '../adapter.js';
import { turnItem } from '../timeline-parts.js';
import { RewindError } from '../../errors.js';
import { clip, MAX_TURN_ITEMS } from '../../turn/text.js';
import { obj, str } from '../jsonl.js';
import { qwenModel, qwenPromptText } from './parse.js';

/** One prompt's turn in a Qwen session: the records below the prompt, down to the next prompt. */
export async function qwenTurn(path: string, promptUuid: string): Promise<TurnDetail> {
  const m = qwenModel(await readFile(path));
  const prompt = m.byUuid.get(promptUuid);
  const p = prompt ? qwenPromptText(prompt.line.value!) : null;
  if (!prompt || !p) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const mine = new Set([promptUuid]);
  const items: TurnItem[] = [];
  let truncated = false;
  for (const r of m.records) {
    if (!r.parentUuid || !mine.has(r.parentUuid) || qwenPromptText(r.line.value!)) continue;
    mine.add(r.uuid);
    const parts = obj(r.line.value!.message).parts;
    for (const part of Array.isArray(parts) ? (parts as Record<string, unknown>[]) : []) {
      if (items.length >= MAX_TURN_ITEMS) {
        truncated = true;
        break;
      }
      if (r.type === 'assistant' && typeof part.text === 'string' && part.text.trim()) items.push(turnItem({ kind: part.thought ? 'thinking' : 'text', title: part.thought ? 'thinking' : 'Qwen', body: clip(part.text), isError: false }));
      else if (part.functionCall) items.push(turnItem({ kind: 'tool-call', title: str(obj(part.functionCall).name) ?? 'tool', body: clip(JSON.stringify(obj(part.functionCall).args ?? {}, null, 2)), isError: false }));
      else if (part.functionResponse) items.push(turnItem({ kind: 'tool-result', title: 'result', body: clip(JSON.stringify(obj(part.functionResponse).response ?? {}, null, 2)), isError: false }));
    }
  }
  return { promptUuid, text: p.text, items, truncated, model: null, promptImages: [] };
}
