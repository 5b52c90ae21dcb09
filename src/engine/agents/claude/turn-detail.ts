import { open } from 'node:fs/promises';
import { RewindError } from '../../errors.js';
import type { SessionModel } from './model.js';
import type { ResponseOf } from '../../../shared/contract.js';
import { subagentOutline } from './subagent-outline.js';
import { blocksText, clip, MAX_TURN_ITEMS } from '../../turn-text.js';

type Item = ResponseOf<'getTurn'>['items'][number];
const MAX_ITEMS = MAX_TURN_ITEMS;
const resultText = blocksText;

/**
 * Everything a prompt's turn holds (assistant text, tool calls with their inputs, results), read
 * from the byte ranges the model recorded: the session is never kept in memory whole.
 */
export async function turnDetail(model: SessionModel, promptUuid: string): Promise<ResponseOf<'getTurn'>> {
  const prompt = model.prompts.find((p) => p.uuid === promptUuid);
  if (!prompt) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const inTurn = new Set([promptUuid]);
  const nodes = [];
  const start = model.order.findIndex((n) => n.uuid === promptUuid);
  for (let i = start + 1; i < model.order.length; i++) {
    const n = model.order[i]!;
    if (n.isSidechain) continue;
    const parent = n.parentUuid ?? n.logicalParentUuid;
    if (!parent || !inTurn.has(parent) || n.userKind === 'prompt') continue;
    inTurn.add(n.uuid);
    if (n.type === 'assistant' || n.type === 'user') nodes.push(n);
  }
  const items: Item[] = [];
  let truncated = false;
  const fh = await open(model.transcriptPath, 'r');
  try {
    for (const n of nodes) {
      if (items.length >= MAX_ITEMS) {
        truncated = true;
        break;
      }
      const buf = Buffer.alloc(n.length);
      await fh.read(buf, 0, n.length, n.offset);
      let e: { message?: { content?: unknown } };
      try {
        e = JSON.parse(buf.toString('utf8'));
      } catch {
        continue;
      }
      const content = e.message?.content;
      if (typeof content === 'string') {
        if (n.type === 'user' && n.userKind === 'command') items.push({ kind: 'command', title: 'command', body: clip(content), isError: false });
        continue;
      }
      if (!Array.isArray(content)) continue;
      for (const b of content as Record<string, unknown>[]) {
        if (b.type === 'text' && n.type === 'assistant') items.push({ kind: 'text', title: 'Claude', body: clip(String(b.text ?? '')), isError: false });
        else if (b.type === 'thinking') items.push({ kind: 'thinking', title: 'thinking', body: clip(String(b.thinking ?? '')), isError: false });
        else if (b.type === 'tool_use') {
          const name = String(b.name ?? 'tool');
          const input = (b.input ?? {}) as Record<string, unknown>;
          const what = typeof input.file_path === 'string' ? input.file_path : typeof input.command === 'string' ? input.command : typeof input.description === 'string' ? input.description : '';
          const run = name === 'Agent' || name === 'Task' ? model.subagents.find((r) => r.toolUseId === b.id) : undefined;
          // A subagent's item shows what it did (its own transcript), then what it was asked.
          const body = run ? `${await subagentOutline(run)}\n\nAsked:\n${JSON.stringify(input, null, 2)}` : JSON.stringify(input, null, 2);
          items.push({ kind: name === 'Agent' || name === 'Task' ? 'subagent' : 'tool-call', title: `${name}${what ? ` ${what}` : ''}`, body: clip(body), isError: false });
        } else if (b.type === 'tool_result') {
          items.push({ kind: 'tool-result', title: b.is_error ? 'error' : 'result', body: clip(resultText(b.content)), isError: b.is_error === true });
        }
      }
    }
  } finally {
    await fh.close();
  }
  return { promptUuid, text: prompt.text, items, truncated };
}
