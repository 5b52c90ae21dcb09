import type { Timeline } from '../../../shared/session-schema.js';
import { obj, splitJsonl, str, type JsonlLine } from '../jsonl.js';

/**
 * Gemini CLI sessions are event-sourced (FORMATS.md §2b): a header line (`sessionId`,
 * `projectHash`, `startTime`, `lastUpdated`, `kind`, written again on every resume), message
 * records (a repeated `id` replaces the earlier record where it stood), `{"$set": {...}}` patches
 * (on each resume a whole `messages` list), and `{"$rewindTo": id}` (drops that message and
 * everything after it; one naming no message it holds drops everything). Replaying the lines in order gives the conversation a resume loads.
 */

export interface GeminiMessage {
  id: string;
  record: Record<string, unknown>;
  /** The line that last wrote this message (a record, or a `$set` of the whole list). */
  line: JsonlLine;
}

export interface GeminiReplay {
  lines: JsonlLine[];
  meta: { sessionId: string | null; projectHash: string | null; startTime: string | null; lastUpdated: string | null; kind: string | null };
  /** The conversation after every line: what a resume sends. */
  messages: GeminiMessage[];
  /** Every message ever seen, by id, with the line that first wrote it (dropped ones included). */
  seen: Map<string, GeminiMessage>;
  /** The newest record line of each id (a `$set` list repeats messages in another shape: not these). */
  records: Map<string, GeminiMessage>;
  /** Messages each `$rewindTo` dropped, in order, with the message that preceded the cut. */
  rewinds: { line: JsonlLine; dropped: string[]; before: string | null }[];
  issues: Timeline['issues'];
}

const isMessage = (v: Record<string, unknown>): boolean => typeof v.id === 'string' && typeof v.type === 'string' && !('sessionId' in v && 'projectHash' in v);

export function replayGemini(buf: Buffer): GeminiReplay {
  const { lines } = splitJsonl(buf);
  const meta: GeminiReplay['meta'] = { sessionId: null, projectHash: null, startTime: null, lastUpdated: null, kind: null };
  let messages: GeminiMessage[] = [];
  const seen = new Map<string, GeminiMessage>();
  const records = new Map<string, GeminiMessage>();
  const rewinds: GeminiReplay['rewinds'] = [];
  const issues: Timeline['issues'] = [];
  const setMeta = (v: Record<string, unknown>) => {
    for (const k of Object.keys(meta) as (keyof typeof meta)[]) if (typeof v[k] === 'string') meta[k] = v[k] as string;
  };
  for (const line of lines) {
    const v = line.value;
    if (!v) {
      if (line.length > 0) issues.push({ line: line.index + 1, offset: line.offset, reason: line.reason ?? 'unreadable' });
      continue;
    }
    if ('$rewindTo' in v) {
      // As the CLI's loader does: an id it does not hold empties the whole conversation.
      const found = messages.findIndex((m) => m.id === v.$rewindTo);
      const at = found === -1 ? 0 : found;
      if (messages.length > 0) rewinds.push({ line, dropped: messages.slice(at).map((m) => m.id), before: messages[at - 1]?.id ?? null });
      messages = messages.slice(0, at);
      continue;
    }
    if ('$set' in v) {
      const set = obj(v.$set);
      setMeta(set);
      if (Array.isArray(set.messages)) {
        messages = set.messages
          .filter((m): m is Record<string, unknown> => !!m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string')
          .map((record) => {
            const m = { id: record.id as string, record, line };
            if (!seen.has(m.id)) seen.set(m.id, m);
            return m;
          });
      }
      continue;
    }
    if (typeof v.sessionId === 'string' && 'projectHash' in v) {
      setMeta(v);
      continue;
    }
    if (!isMessage(v)) continue;
    const m = { id: v.id as string, record: v, line };
    if (!seen.has(m.id)) seen.set(m.id, m);
    records.set(m.id, m);
    const at = messages.findIndex((x) => x.id === m.id);
    if (at === -1) messages.push(m);
    else messages[at] = m;
  }
  return { lines, meta, messages, seen, records, rewinds, issues };
}

type Part = Record<string, unknown>;
const partsOf = (content: unknown): Part[] => (Array.isArray(content) ? content.filter((p): p is Part => !!p && typeof p === 'object') : typeof content === 'string' ? [{ text: content }] : []);

/** A human prompt: a `user` message with text (not a function response, not the session context). */
export function geminiPromptText(record: Record<string, unknown>): { text: string; images: number } | null {
  if (record.type !== 'user') return null;
  const parts = partsOf(record.content);
  if (parts.some((p) => p.functionResponse)) return null;
  const texts = parts.filter((p) => typeof p.text === 'string').map((p) => String(p.text));
  const images = parts.filter((p) => p.inlineData || p.fileData).length;
  if (texts.length === 0 && images === 0) return null;
  if (texts.every((t) => t.trimStart().startsWith('<session_context>'))) return null;
  return { text: texts.filter((t) => !t.trimStart().startsWith('<session_context>')).join('\n'), images };
}

export { partsOf };
export const geminiMeta = (v: Record<string, unknown> | null): string | null => (v ? str(v.sessionId) : null);
