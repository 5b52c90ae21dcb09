import type { PromptMatch } from '../claude/search.js';
import { readLines } from '../io/read-lines.js';
import { rolloutIdFromPath, type RolloutFile } from './discover.js';

const USER_MESSAGE = Buffer.from('"user_message"');

/** Codex prompts containing `query` (case-insensitive): the same contract as Claude's search. */
export async function searchRollouts(files: RolloutFile[], query: string, opts: { maxBytes?: number; perSession?: number } = {}): Promise<{ matches: PromptMatch[]; truncated: boolean }> {
  const q = query.trim().toLowerCase();
  const matches: PromptMatch[] = [];
  if (!q) return { matches, truncated: false };
  const maxBytes = opts.maxBytes ?? 256 * 1024 * 1024;
  const perSession = opts.perSession ?? 3;
  let read = 0;
  for (const f of [...files].sort((a, b) => b.mtimeMs - a.mtimeMs)) {
    if (read + f.size > maxBytes) return { matches, truncated: true };
    read += f.size;
    let found = 0;
    await readLines(f.path, (line) => {
      if (found >= perSession || line.bytes.indexOf(USER_MESSAGE) === -1) return;
      const text = line.bytes.toString('utf8');
      if (!text.toLowerCase().includes(q)) return;
      let v: { type?: unknown; payload?: { type?: unknown; message?: unknown } };
      try {
        v = JSON.parse(text) as typeof v;
      } catch {
        return;
      }
      const message = v.type === 'event_msg' && v.payload?.type === 'user_message' && typeof v.payload.message === 'string' ? v.payload.message : null;
      const at = message?.toLowerCase().indexOf(q) ?? -1;
      if (!message || at === -1) return;
      const start = Math.max(0, at - 30);
      const snippet = message.slice(start).replace(/\s+/g, ' ').trim();
      matches.push({ transcriptPath: f.path, sessionId: rolloutIdFromPath(f.path), promptUuid: `codex:${line.offset}`, snippet: `${start > 0 ? '…' : ''}${snippet.length > 90 ? `${snippet.slice(0, 89)}…` : snippet}` });
      found++;
    }).catch(() => undefined);
  }
  return { matches, truncated: false };
}
