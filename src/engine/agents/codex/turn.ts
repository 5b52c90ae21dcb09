import { RewindError } from '../../errors.js';
import type { TurnItem } from '../../../shared/contract.js';
import type { TurnDetail } from '../adapter.js';
import { timelineOfThread } from './rollout.js';
import { readThread } from './thread.js';
import { resultOf, toolTitle, toolView } from '../../turn/tool-view.js';
import { blocksText, clip, MAX_TURN_ITEMS } from '../../turn/text.js';

const MAX_ITEMS = MAX_TURN_ITEMS;

function outputText(v: unknown): string {
  if (v && typeof v === 'object' && !Array.isArray(v) && 'output' in v) return outputText((v as { output: unknown }).output);
  return blocksText(v);
}

/** A call's input: its JSON arguments parsed, free-form text (apply_patch) as is, a local shell's action. */
function inputOf(p: Record<string, unknown>): unknown {
  if (p.type === 'local_shell_call') return p.action ?? {};
  const raw = typeof p.arguments === 'string' ? p.arguments : typeof p.input === 'string' ? p.input : '';
  try {
    const v = JSON.parse(raw) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
  } catch {
    // free-form
  }
  return raw;
}

const item = (i: Pick<TurnItem, 'kind' | 'title' | 'body'> & Partial<TurnItem>): TurnItem => ({ isError: false, tool: null, images: [], subagent: null, ...i });

/**
 * What happened in one prompt's turn of a Codex thread: the lines from its turn's start to the next
 * prompt's (inherited lines of a reference fork included), each tool call with its output paired by
 * call id, and the model its turn context names. Reasoning shows its summary only (the rest is
 * encrypted and never rendered).
 */
export async function codexTurn(path: string, promptUuid: string): Promise<TurnDetail> {
  const thread = await readThread(path);
  const timeline = timelineOfThread(thread);
  const i = timeline.prompts.findIndex((p) => p.uuid === promptUuid);
  if (i === -1) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const prompt = timeline.prompts[i]!;
  const end = timeline.prompts[i + 1]?.byteOffset ?? Number.POSITIVE_INFINITY;
  const items: TurnItem[] = [];
  const calls = new Map<string, TurnItem>();
  let truncated = false;
  let model: string | null = null;
  for (const line of thread.lines) {
    if (line.vOffset >= end) break;
    const p = (line.rec.payload ?? {}) as Record<string, unknown>;
    // The turn's context (its model) may be written just before its first line.
    if (line.rec.type === 'turn_context' && typeof p.model === 'string') model = p.model;
    if (line.vOffset < prompt.byteOffset || line.rec.type !== 'response_item') continue;
    if (p.type === 'message' && p.role === 'user') continue;
    if (items.length >= MAX_ITEMS) {
      truncated = true;
      break;
    }
    if (p.type === 'message' && p.role === 'assistant') {
      const text = outputText(p.content);
      if (text.trim()) items.push(item({ kind: 'text', title: 'Said', body: clip(text) }));
    } else if (p.type === 'reasoning') {
      const summary = outputText(p.summary);
      if (summary.trim()) items.push(item({ kind: 'thinking', title: 'Thinking', body: clip(summary) }));
    } else if (p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') {
      const name = p.type === 'local_shell_call' ? 'local_shell' : typeof p.name === 'string' ? p.name : 'tool';
      const tool = toolView(name, inputOf(p));
      const it = item({ kind: 'tool-call', title: toolTitle(tool), body: '', tool });
      items.push(it);
      if (typeof p.call_id === 'string') calls.set(p.call_id, it);
    } else if (p.type === 'function_call_output' || p.type === 'custom_tool_call_output') {
      const call = typeof p.call_id === 'string' ? calls.get(p.call_id) : undefined;
      const result = resultOf(outputText(p.output), false);
      if (call?.tool) call.tool.result = result;
      else items.push(item({ kind: 'tool-result', title: 'Result', body: result.text }));
    }
  }
  return { promptUuid, text: prompt.text, items, truncated, model, promptImages: [] };
}
