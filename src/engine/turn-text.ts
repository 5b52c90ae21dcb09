/** Limits and text helpers shared by both agents' turn readers: a turn pane never holds a whole log. */
export const MAX_TURN_ITEMS = 400;
const MAX_BODY = 8000;

export const clip = (s: string): string => (s.length > MAX_BODY ? `${s.slice(0, MAX_BODY)}\n… (${s.length - MAX_BODY} more characters)` : s);

/** The text of a content value: a string, or the `text` of each block of an array. */
export function blocksText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b === 'object' && 'text' in b ? String((b as { text: unknown }).text) : '')).join('\n');
  return '';
}

/** Whitespace folded to single spaces, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
