import type { TurnItem } from '../../../shared/contract.js';
import { clip } from '../../turn/text.js';
import { imageBudget, imagesOf } from '../../turn/images.js';
import { resultOf, toolTitle, toolView } from '../../turn/tool-view.js';

type Entry = { type?: unknown; isMeta?: unknown; message?: { content?: unknown; model?: unknown } };

/**
 * Builds a turn's items from transcript entries, in order: text, thinking, each tool call drawn for
 * what it is with its result paired to it by id, images. Stops at `max` items (then `truncated`).
 */
export class TurnItemsBuilder {
  readonly items: TurnItem[] = [];
  truncated = false;
  model: string | null = null;
  private readonly calls = new Map<string, TurnItem>();
  constructor(
    private readonly max: number,
    private readonly take = imageBudget(),
  ) {}

  private push(item: Omit<TurnItem, 'tool' | 'images' | 'subagent' | 'isError'> & Partial<TurnItem>): TurnItem | null {
    if (this.items.length >= this.max) {
      this.truncated = true;
      return null;
    }
    const full: TurnItem = { isError: false, tool: null, images: [], subagent: null, ...item };
    this.items.push(full);
    return full;
  }

  /** One entry (a transcript line, parsed). `subagent` resolves an Agent/Task call to its run. */
  async add(e: Entry, opts: { command?: boolean; prompt?: boolean; subagent?: (toolUseId: string) => Promise<TurnItem['subagent']> } = {}): Promise<void> {
    const content = e.message?.content;
    if (e.type === 'assistant' && typeof e.message?.model === 'string' && !e.message.model.startsWith('<')) this.model = e.message.model;
    if (typeof content === 'string') {
      if (opts.prompt) this.push({ kind: 'prompt', title: 'Asked', body: clip(content) });
      else if (opts.command) this.push({ kind: 'command', title: 'Command', body: clip(content) });
      return;
    }
    if (!Array.isArray(content)) return;
    for (const b of content as Record<string, unknown>[]) {
      if (!b || typeof b !== 'object') continue;
      if (b.type === 'text' && e.type === 'assistant') {
        const text = String(b.text ?? '');
        if (text.trim()) this.push({ kind: 'text', title: 'Said', body: clip(text) });
      } else if (b.type === 'text' && opts.prompt) this.push({ kind: 'prompt', title: 'Asked', body: clip(String(b.text ?? '')) });
      else if (b.type === 'thinking') {
        const text = String(b.thinking ?? '');
        if (text.trim()) this.push({ kind: 'thinking', title: 'Thinking', body: clip(text) });
      } else if (b.type === 'tool_use') {
        const name = String(b.name ?? 'tool');
        const tool = toolView(name, b.input);
        const isAgent = name === 'Agent' || name === 'Task';
        const subagent = isAgent && opts.subagent && typeof b.id === 'string' ? await opts.subagent(b.id) : null;
        const input = (b.input ?? {}) as Record<string, unknown>;
        const title = isAgent ? String(input.description ?? subagent?.description ?? 'Subagent') : toolTitle(tool);
        const item = this.push({ kind: isAgent ? 'subagent' : 'tool-call', title, body: isAgent && typeof input.prompt === 'string' ? clip(input.prompt) : '', tool, subagent });
        if (item && typeof b.id === 'string') this.calls.set(b.id, item);
      } else if (b.type === 'tool_result') {
        const isError = b.is_error === true;
        const images = imagesOf(b.content, this.take);
        const call = typeof b.tool_use_id === 'string' ? this.calls.get(b.tool_use_id) : undefined;
        if (call?.tool) {
          call.tool.result = resultOf(b.content, isError);
          call.isError = isError;
          call.images.push(...images);
        } else this.push({ kind: 'tool-result', title: isError ? 'Error' : 'Result', body: resultOf(b.content, isError).text, isError, images });
      } else if (b.type === 'image') {
        const img = this.take(b);
        if (img) this.push({ kind: 'image', title: 'Image', body: '', images: [img] });
      }
    }
  }
}
