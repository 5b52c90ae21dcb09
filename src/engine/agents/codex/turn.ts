import { RewindError } from '../../errors.js';
import { timelineOfThread, toolCall } from './rollout.js';
import { readThread } from './thread.js';
import { blocksText, clip, MAX_TURN_ITEMS } from '../../turn-text.js';

export interface CodexTurnItem {
  kind: 'text' | 'thinking' | 'tool-call' | 'tool-result' | 'other';
  title: string;
  body: string;
  isError: boolean;
}

const MAX_ITEMS = MAX_TURN_ITEMS;

function outputText(v: unknown): string {
  if (v && typeof v === 'object' && !Array.isArray(v) && 'output' in v) return outputText((v as { output: unknown }).output);
  return blocksText(v);
}

/**
 * What happened in one prompt's turn of a Codex thread: the lines from its turn's start to the next
 * prompt's (inherited lines of a reference fork included). Reasoning shows its summary only (the
 * rest is encrypted and never rendered).
 */
export async function codexTurn(path: string, promptUuid: string): Promise<{ promptUuid: string; text: string; items: CodexTurnItem[]; truncated: boolean }> {
  const thread = await readThread(path);
  const timeline = timelineOfThread(thread);
  const i = timeline.prompts.findIndex((p) => p.uuid === promptUuid);
  if (i === -1) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const prompt = timeline.prompts[i]!;
  const end = timeline.prompts[i + 1]?.byteOffset ?? Number.POSITIVE_INFINITY;
  const items: CodexTurnItem[] = [];
  let truncated = false;
  for (const line of thread.lines) {
    if (line.vOffset < prompt.byteOffset || line.vOffset >= end || line.rec.type !== 'response_item') continue;
    const p = (line.rec.payload ?? {}) as Record<string, unknown>;
    if (p.type === 'message' && p.role === 'user') continue;
    if (items.length >= MAX_ITEMS) {
      truncated = true;
      break;
    }
    if (p.type === 'message' && p.role === 'assistant') {
      const text = outputText(p.content);
      if (text.trim()) items.push({ kind: 'text', title: 'Codex', body: clip(text), isError: false });
    } else if (p.type === 'reasoning') {
      const summary = outputText(p.summary);
      if (summary.trim()) items.push({ kind: 'thinking', title: 'reasoning', body: clip(summary), isError: false });
    } else if (p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') {
      const c = toolCall(p);
      const input = typeof p.arguments === 'string' ? p.arguments : typeof p.input === 'string' ? p.input : JSON.stringify(p.action ?? {}, null, 2);
      items.push({ kind: 'tool-call', title: c.summary ? `${c.name} ${c.summary.split('\n')[0]!.slice(0, 120)}` : c.name, body: clip(input), isError: false });
    } else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') {
      items.push({ kind: 'tool-result', title: 'result', body: clip(outputText(p.output)), isError: false });
    }
  }
  return { promptUuid, text: prompt.text, items, truncated };
}
