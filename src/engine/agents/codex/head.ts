import { parseJsonLine } from '../../io/json-line.js';
import type { Rec } from './thread.js';

/** Is this first line a Codex rollout's `session_meta`? */
export function isRolloutHead(firstLine: Buffer | string): boolean {
  const parsed = parseJsonLine(typeof firstLine === 'string' ? Buffer.from(firstLine) : firstLine);
  if (!parsed.ok) return false;
  const e = parsed.value as Rec;
  return e.type === 'session_meta' && !!e.payload && typeof e.payload === 'object';
}
