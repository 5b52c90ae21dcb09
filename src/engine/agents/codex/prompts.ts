/**
 * Which user messages of a rollout are the user's prompts. Codex 0.169 writes no `event_msg`
 * `user_message` lines: the prompt is the user-role `response_item` message of the model history.
 * Codex also puts context it injects there (AGENTS.md, `<environment_context>`,
 * `<user_instructions>`, ...): 0.169 labels each item (`content_item_kinds`: `user.text` for what
 * the user typed); older rollouts carry no label, and the injected text is wrapped in its tag.
 */

type Payload = Record<string, unknown>;

const INJECTED_PREFIXES = ['# AGENTS.md instructions', '<environment_context>', '<user_instructions>', '<INSTRUCTIONS>', '<user_shell_command>', '<turn_aborted>', '<skills_instructions>'];
/** A whole message wrapped in one tag, `<name ...>...</name>`: how Codex frames what it injects. */
const WRAPPED = /^<([A-Za-z_][\w-]*)(?:\s[^>]*)?>[\s\S]*<\/\1>$/;

function contentText(content: unknown): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: '', images: 0 };
  const parts: string[] = [];
  let images = 0;
  for (const c of content) {
    if (!c || typeof c !== 'object') continue;
    const item = c as Payload;
    if ((item.type === 'input_text' || item.type === 'text') && typeof item.text === 'string') parts.push(item.text);
    else if (item.type === 'input_image' || item.type === 'image') images++;
  }
  return { text: parts.join('\n'), images };
}

/** The prompt a `response_item` payload holds, or null (not a user message, or injected context). */
export function promptOfItem(p: Payload | undefined): { text: string; images: number } | null {
  if (!p || p.type !== 'message' || p.role !== 'user') return null;
  const kinds = (p.internal_chat_message_metadata_passthrough as Payload | undefined)?.content_item_kinds;
  const c = contentText(p.content);
  if (Array.isArray(kinds) && kinds.length > 0) return kinds.some((k) => typeof k === 'string' && k.startsWith('user.')) ? c : null;
  const t = c.text.trim();
  if (!t && c.images === 0) return null;
  if (INJECTED_PREFIXES.some((x) => t.startsWith(x)) || WRAPPED.test(t)) return null;
  return c;
}

/** The prompt an older rollout's `event_msg` `user_message` payload holds. */
export function promptOfEvent(p: Payload | undefined): { text: string; images: number } | null {
  if (!p || p.type !== 'user_message' || typeof p.message !== 'string') return null;
  return { text: p.message, images: Array.isArray(p.images) ? p.images.length : 0 };
}

/** How search finds a prompt line: the history item (named, like the timeline names it, by where its line starts); an older rollout's duplicate `user_message` event is not matched twice. */
export const CODEX_PROMPTS = {
  marker: Buffer.from('"user"'),
  prompt: (v: Record<string, unknown>, offset: number) => {
    const p = v.type === 'response_item' ? promptOfItem(v.payload as Record<string, unknown> | undefined) : null;
    return p ? { uuid: `codex:${offset}`, text: p.text } : null;
  },
};
