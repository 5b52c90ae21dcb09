/** One line of an agent's JSONL session file, parsed without trusting it. */
export interface JsonlLine {
  /** 0-based line index. */
  index: number;
  offset: number;
  /** Bytes of the line, without its newline. */
  length: number;
  /** The parsed object, or null (with `reason`) for a torn, foreign or empty line. */
  value: Record<string, unknown> | null;
  reason: string | null;
}

/**
 * Splits a whole session file into lines and parses each. Pure: the other agents' files are read
 * whole (they are small next to Claude's), so planners can work on one consistent buffer. A last
 * line without its newline is still being written: it is reported as `partial`, not parsed.
 */
export function splitJsonl(buf: Buffer): { lines: JsonlLine[]; partial: { offset: number; length: number } | null } {
  const lines: JsonlLine[] = [];
  let start = 0;
  let index = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    if (nl === -1) return { lines, partial: { offset: start, length: buf.length - start } };
    let end = nl;
    if (end > start && buf[end - 1] === 0x0d) end--;
    lines.push({ index, offset: start, length: end - start, ...parseObject(buf.subarray(start, end)) });
    index++;
    start = nl + 1;
  }
  return { lines, partial: null };
}

function parseObject(bytes: Buffer): { value: Record<string, unknown> | null; reason: string | null } {
  if (bytes.length === 0) return { value: null, reason: 'empty line' };
  try {
    const v = JSON.parse(bytes.toString('utf8')) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return { value: null, reason: 'not a JSON object' };
    return { value: v as Record<string, unknown>, reason: null };
  } catch (e) {
    return { value: null, reason: `malformed JSON: ${(e instanceof Error ? e.message : String(e)).slice(0, 120)}` };
  }
}

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
export const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
