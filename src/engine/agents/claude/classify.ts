/**
 * Which `user` lines are human prompts, and what their text is (FORMATS.md). Pure functions over
 * one parsed JSON line.
 */
const INJECTED_PREFIXES = [
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  '<bash-input>',
  '<bash-stdout>',
  '<bash-stderr>',
  '<task-notification>',
  '<system-reminder>',
  '<ide_opened_file>',
  '<ide_selection>',
  '<session-start-hook>',
  '<user-prompt-submit-hook>',
  '<tick>',
  '[Request interrupted by user',
];

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export interface UserContent {
  text: string;
  images: number;
  hasToolResult: boolean;
  toolResultIds: string[];
}

export function readUserContent(entry: Json): UserContent {
  const message = isObject(entry.message) ? entry.message : undefined;
  const content = message?.content;
  if (typeof content === 'string') return { text: content, images: 0, hasToolResult: false, toolResultIds: [] };
  const texts: string[] = [];
  let images = 0;
  const toolResultIds: string[] = [];
  if (Array.isArray(content)) {
    for (const block of content) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      else if (block.type === 'image') images++;
      else if (block.type === 'tool_result') toolResultIds.push(str(block.tool_use_id) ?? '');
    }
  }
  return { text: texts.join('\n'), images, hasToolResult: toolResultIds.length > 0, toolResultIds };
}

export type UserKind = 'prompt' | 'command' | 'tool-result' | 'meta' | 'compact-summary' | 'injected' | 'sidechain';

export function classifyUser(entry: Json, content: UserContent): UserKind {
  if (entry.isSidechain === true) return 'sidechain';
  if (content.hasToolResult) return 'tool-result';
  if (entry.isCompactSummary === true) return 'compact-summary';
  if (entry.isMeta === true) return 'meta';
  const t = content.text.trimStart();
  if (isCommandText(t)) return 'command';
  for (const p of INJECTED_PREFIXES) if (t.startsWith(p)) return 'injected';
  if (t.length === 0 && content.images === 0) return 'injected';
  return 'prompt';
}

function isCommandText(t: string): boolean {
  return (t.startsWith('<command-name>') || t.startsWith('<command-message>')) && t.includes('<command-name>');
}

export interface CommandInfo {
  name: string;
  args: string;
}

export function parseCommand(text: string): CommandInfo | null {
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1]?.trim();
  if (!name) return null;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? '';
  return { name: name.startsWith('/') ? name : `/${name}`, args };
}
