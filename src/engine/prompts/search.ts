import { readLines } from '../io/read-lines.js';
import { oneLine } from '../turn/text.js';

export interface PromptMatch {
  transcriptPath: string;
  sessionId: string;
  promptUuid: string;
  snippet: string;
}

/** How one agent's lines name a prompt. */
export interface PromptLines {
  /** Bytes every prompt line contains: other lines are skipped unparsed. */
  marker: Buffer;
  /** Bytes that only lines which are not prompts contain (Claude's tool results): such lines are never parsed. */
  notPrompt?: Buffer;
  /** The prompt a parsed line holds (its id as the timeline names it, and its text), else null. */
  prompt(line: Record<string, unknown>, offset: number): { uuid: string; text: string; timestamp?: string | null } | null;
  /**
   * Agents whose sessions are trees (Claude's native rewinds): how a line names its message id and
   * its parent, found in the raw bytes without parsing the line (line-scanner.ts reads them). The
   * metadata index counts prompts on the live path with them. Absent: a session is one straight line.
   */
  links?: {
    /** The parent's key, right before its quoted id or `null` (found in the line's first `headBytes`). */
    parent: string;
    /** The message's own id key, with its opening quote: the first in the line is the message's. */
    own: string;
    /** Lines with this in their first `headBytes` are not on the session's path (Claude's sidechains). */
    exclude?: string;
    /** When the parent is null: the key of the id the message follows instead (a compaction's boundary). */
    fallbackParent?: string;
    headBytes: number;
  };
}

/**
 * Finds prompts containing `query` (case-insensitive) across session files, in the order given.
 * Only lines with the marker and the query are parsed; the scan stops at `maxBytes` read or
 * `maxMatches` found and says so.
 */
export async function searchPromptLines(
  files: { path: string; size: number; sessionId: string }[],
  query: string,
  lines: PromptLines,
  opts: { maxBytes: number; maxMatches: number; perSession: number },
): Promise<{ matches: PromptMatch[]; truncated: boolean }> {
  const q = query.trim().toLowerCase();
  const matches: PromptMatch[] = [];
  if (!q) return { matches, truncated: false };
  let read = 0;
  for (const f of files) {
    if (read + f.size > opts.maxBytes || matches.length >= opts.maxMatches) return { matches, truncated: true };
    read += f.size;
    let found = 0;
    await readLines(f.path, (line) => {
      if (found >= opts.perSession || line.bytes.indexOf(lines.marker) === -1) return;
      const text = line.bytes.toString('utf8');
      if (!text.toLowerCase().includes(q)) return;
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        return;
      }
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
      const p = lines.prompt(v as Record<string, unknown>, line.offset);
      const at = p ? p.text.toLowerCase().indexOf(q) : -1;
      if (!p || at === -1) return;
      const start = Math.max(0, at - 30);
      matches.push({ transcriptPath: f.path, sessionId: f.sessionId, promptUuid: p.uuid, snippet: `${start > 0 ? '…' : ''}${oneLine(p.text.slice(start), 90)}` });
      found++;
    }).catch(() => undefined);
  }
  return { matches, truncated: false };
}
