import { readFile } from 'node:fs/promises';
import type { TurnDetail, TurnItem } from '../adapter.js';
import { turnItem } from '../timeline-parts.js';
import { RewindError } from '../../errors.js';
import { clip, MAX_TURN_ITEMS } from '../../turn/text.js';
import { obj, str } from '../jsonl.js';
import { geminiPromptText, partsOf, replayGemini } from './replay.js';

/** One prompt's turn: the messages after it in the replayed conversation, to the next prompt. */
export async function geminiTurn(path: string, promptUuid: string): Promise<TurnDetail> {
  const r = replayGemini(await readFile(path));
  const list = r.messages.some((m) => m.id === promptUuid) ? r.messages : (r.rewinds.find((rw) => rw.dropped.includes(promptUuid))?.dropped ?? []).map((id) => r.seen.get(id)!);
  const at = list.findIndex((m) => m.id === promptUuid);
  const p = at === -1 ? null : geminiPromptText(list[at]!.record);
  if (!p) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const items: TurnItem[] = [];
  let truncated = false;
  for (const m of list.slice(at + 1)) {
    if (geminiPromptText(m.record)) break;
    if (items.length >= MAX_TURN_ITEMS) {
      truncated = true;
      break;
    }
    // A `$set` list holds messages in Gemini's API shape: the record line of the same id has the tool calls.
    const line = r.records.get(m.id);
    const rec = line && line.record.type === m.record.type ? line.record : m.record;
    if (rec.type === 'gemini') {
      const text = partsOf(rec.content).map((x) => (typeof x.text === 'string' ? x.text : '')).join('') || (typeof rec.content === 'string' ? rec.content : '');
      if (text.trim()) items.push(turnItem({ kind: 'text', title: 'Gemini', body: clip(text), isError: false }));
      for (const c of Array.isArray(rec.toolCalls) ? (rec.toolCalls as Record<string, unknown>[]) : []) {
        items.push(turnItem({ kind: 'tool-call', title: str(c.name) ?? 'tool', body: clip(JSON.stringify(c.args ?? {}, null, 2)), isError: false }));
        if (c.result !== undefined) items.push(turnItem({ kind: 'tool-result', title: 'result', body: clip(JSON.stringify(c.result, null, 2)), isError: c.status === 'error' }));
      }
    } else if (rec.type === 'error' || rec.type === 'info') {
      items.push(turnItem({ kind: 'other', title: String(rec.type), body: clip(typeof rec.content === 'string' ? rec.content : JSON.stringify(obj(rec).content ?? '')), isError: rec.type === 'error' }));
    }
  }
  return { promptUuid, text: p.text, items, truncated, model: null, promptImages: [] };
}
