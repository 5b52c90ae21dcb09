import { open } from 'node:fs/promises';
import { RewindError } from '../../errors.js';
import type { SessionModel } from './model.js';
import type { ResponseOf } from '../../../shared/contract.js';
import { imageBudget, imagesOf } from '../../turn/images.js';
import { MAX_TURN_ITEMS } from '../../turn/text.js';
import { MAX_SUBAGENT_STEPS, subagentConversation } from './subagent-outline.js';
import { TurnItemsBuilder } from './turn-items.js';

async function readEntry(fh: Awaited<ReturnType<typeof open>>, offset: number, length: number): Promise<Record<string, unknown> | null> {
  const buf = Buffer.alloc(length);
  await fh.read(buf, 0, length, offset);
  try {
    return JSON.parse(buf.toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * Everything a prompt's turn holds (assistant text, thinking, tool calls with their results,
 * images, subagents with their own steps, the model), read from the byte ranges the model
 * recorded: the session is never kept in memory whole.
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
  const take = imageBudget();
  // All of a turn's subagents share one budget of steps: a turn that fans out to 30 stays light.
  let stepsLeft = MAX_SUBAGENT_STEPS * 4;
  const b = new TurnItemsBuilder(MAX_TURN_ITEMS, take);
  const fh = await open(model.transcriptPath, 'r');
  let promptImages: ResponseOf<'getTurn'>['promptImages'] = [];
  try {
    if (prompt.images > 0) {
      const e = await readEntry(fh, prompt.offset, prompt.length);
      promptImages = imagesOf((e?.message as { content?: unknown } | undefined)?.content, take);
    }
    for (const n of nodes) {
      if (b.truncated) break;
      const e = await readEntry(fh, n.offset, n.length);
      if (!e) continue;
      await b.add(e, {
        command: n.type === 'user' && n.userKind === 'command',
        subagent: async (id) => {
          const run = model.subagents.find((r) => r.toolUseId === id);
          if (!run) return null;
          const conv = await subagentConversation(run, Math.min(MAX_SUBAGENT_STEPS, stepsLeft));
          stepsLeft -= conv.items.length;
          return conv;
        },
      });
    }
  } finally {
    await fh.close();
  }
  return { promptUuid, text: prompt.text, items: b.items, truncated: b.truncated, model: b.model, promptImages };
}
