import type { ToolView, TurnItem, TurnItemBase } from '../../shared/contract.js';
import { plural } from '../../shared/wording.js';

/** A turn item as plain text, for outputs that are text (Markdown/HTML export). */
export interface PlainItem {
  kind: 'text' | 'thinking' | 'tool-call' | 'tool-result' | 'subagent' | 'command' | 'other';
  title: string;
  body: string;
  isError: boolean;
}

/** What a tool call did, in text: the file it wrote, its replacements, the command it ran. */
export function toolText(t: ToolView): string {
  switch (t.view) {
    case 'write':
      return `${t.path ?? ''}\n\n${t.content ?? ''}`;
    case 'edit':
      return [t.path ?? '', ...t.edits.map((e) => `${e.oldText.replace(/^/gm, '- ')}\n${e.newText.replace(/^/gm, '+ ')}`)].join('\n\n');
    case 'bash':
      return `$ ${t.command ?? ''}`;
    case 'read':
      return t.path ?? '';
    case 'search':
      return `${t.command ?? ''}${t.path ? ` in ${t.path}` : ''}`;
    case 'patch':
      return t.command ?? '';
    default:
      return t.input ?? '';
  }
}

const images = (n: number) => (n ? `\n[${plural(n, 'image')}]` : '');

function plainOne(it: TurnItem | TurnItemBase): PlainItem[] {
  if (it.kind === 'prompt') return [{ kind: 'text', title: 'Asked', body: it.body, isError: false }];
  if (it.kind === 'image') return [{ kind: 'other', title: 'Image', body: images(it.images.length).trim(), isError: false }];
  if (!it.tool) return [{ kind: it.kind, title: it.title, body: it.body + images(it.images.length), isError: it.isError }];
  let body = it.kind === 'subagent' ? it.body : toolText(it.tool);
  const sub = 'subagent' in it ? it.subagent : null;
  if (sub?.items.length) body += `\n\nWhat it did:\n${sub.items.map((s) => plainOne(s).map((p) => `${p.title}: ${p.body.split('\n')[0]}`).join('\n')).join('\n')}`;
  const out: PlainItem[] = [{ kind: it.kind, title: it.title, body, isError: false }];
  const r = it.tool.result;
  if (r) out.push({ kind: 'tool-result', title: r.isError ? 'Error' : 'Result', body: r.text + images(it.images.length), isError: r.isError });
  return out;
}

/** A turn's items as text, each tool call followed by its result. */
export function plainItems(items: (TurnItem | TurnItemBase)[]): PlainItem[] {
  return items.flatMap(plainOne);
}
