/** One JSONL record: an object with a string `type`, as both agents write them. */
export type JsonRecord = Record<string, unknown> & { type: string };

/** Parses one line's bytes; never throws. */
export function parseJsonLine(bytes: Buffer): { ok: true; value: JsonRecord } | { ok: false; reason: string } {
  if (bytes.length === 0) return { ok: false, reason: 'empty line' };
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { ok: false, reason: `malformed JSON: ${msg.slice(0, 120)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  if (typeof (value as { type?: unknown }).type !== 'string') return { ok: false, reason: 'no "type" field' };
  return { ok: true, value: value as JsonRecord };
}
