import { parseJsonLine } from '../../io/json-line.js';
import { readLines } from '../../io/read-lines.js';
import type { Timeline } from '../../../shared/session-schema.js';
import { RewindError } from '../../errors.js';
import { toolCall } from './rollout.js';
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
 * What happened in one prompt's turn of a Codex rollout: the lines from the prompt to the next one.
 * Reasoning shows its summary only (the rest is encrypted and never rendered).
 */
export async function codexTurn(timeline: Timeline, promptUuid: string): Promise<{ promptUuid: string; text: string; items: CodexTurnItem[]; truncated: boolean }> {
  const i = timeline.prompts.findIndex((p) => p.uuid === promptUuid);
  if (i === -1) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const prompt = timeline.prompts[i]!;
  const end = timeline.prompts[i + 1]?.byteOffset ?? timeline.session.sizeBytes;
  const items: CodexTurnItem[] = [];
  let truncated = false;
  await readLines(
    timeline.session.transcriptPath,
    (line) => {
      if (line.offset === prompt.byteOffset || line.bytes.length === 0) return;
      if (items.length >= MAX_ITEMS) {
        truncated = true;
        return;
      }
      const parsed = parseJsonLine(line.bytes);
      if (!parsed.ok || parsed.value.type !== 'response_item') return;
      const p = (parsed.value.payload ?? {}) as Record<string, unknown>;
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
    },
    { fromOffset: prompt.byteOffset, toOffset: end },
  );
  return { promptUuid, text: prompt.text, items, truncated };
}
