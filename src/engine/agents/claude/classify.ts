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
  /** The line's text; a slash command that prompts the model, as typed: `/name args`. */
  text: string;
  /** A slash command that prompts the model (a custom command, a skill, `/init`): a prompt, with its command. */
  command: CommandInfo | null;
  images: number;
  hasToolResult: boolean;
  toolResultIds: string[];
}

export function readUserContent(entry: Json): UserContent {
  const message = isObject(entry.message) ? entry.message : undefined;
  const content = message?.content;
  if (typeof content === 'string') return asTyped({ text: content, command: null, images: 0, hasToolResult: false, toolResultIds: [] });
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
  return asTyped({ text: texts.join('\n'), command: null, images, hasToolResult: toolResultIds.length > 0, toolResultIds });
}

/**
 * A slash command the user typed that prompts the model is written as `<command-message>…` then
 * `<command-name>/x</command-name>` (and `<command-args>`), its expansion in the next, `isMeta`, line.
 * A local command (`/compact`, `/clear`, `/model`) starts with `<command-name>` and is followed by its
 * `<local-command-stdout>`: Claude Code itself tells the two apart by which tag comes first (its
 * history of typed prompts keeps the first kind, its records the second; seen in 2.1.332's bundle).
 */
function asTyped(c: UserContent): UserContent {
  const t = c.text.trimStart();
  if (!t.startsWith('<command-message>') || !t.includes('<command-name>')) return c;
  const command = parseCommand(t);
  return command ? { ...c, command, text: `${command.name} ${command.args}`.trim() } : c;
}

export type UserKind = 'prompt' | 'command' | 'tool-result' | 'meta' | 'compact-summary' | 'injected' | 'sidechain';

export function classifyUser(entry: Json, content: UserContent): UserKind {
  if (entry.isSidechain === true) return 'sidechain';
  if (content.hasToolResult) return 'tool-result';
  if (entry.isCompactSummary === true) return 'compact-summary';
  if (entry.isMeta === true) return 'meta';
  if (content.command) return 'prompt';
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
