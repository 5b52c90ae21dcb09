/** Limits and text helpers shared by both agents' turn readers: a turn pane never holds a whole log. */
export const MAX_TURN_ITEMS = 400;
const MAX_BODY = 8000;

/**
 * A long body cut to MAX_BODY, never inside a token: a key or password cut in half would no longer
 * match the export's redaction patterns. The cut goes back to the last space or punctuation of the
 * last 1,000 characters (else it is at MAX_BODY).
 */
export const clip = (s: string): string => {
  if (s.length <= MAX_BODY) return s;
  const back = s.slice(MAX_BODY - 1000, MAX_BODY).search(/[\s"'`,;:{}()[\]<>|&][^\s"'`,;:{}()[\]<>|&]*$/);
  const at = back === -1 ? MAX_BODY : MAX_BODY - 1000 + back + 1;
  return `${s.slice(0, at)}\n… (${s.length - at} more characters)`;
};

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
