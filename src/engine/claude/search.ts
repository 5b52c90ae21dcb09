import { readLines } from '../io/read-lines.js';
import { classifyUser, isObject, readUserContent } from './classify.js';
import { oneLine } from './session-builder.js';
import type { TranscriptFile } from './discover.js';

export interface PromptMatch {
  transcriptPath: string;
  sessionId: string;
  promptUuid: string;
  snippet: string;
}

const USER = Buffer.from('"user"');

/**
 * Finds human prompts containing `query` (case-insensitive) across sessions, newest first. Only
 * lines that mention "user" and contain the query are parsed; the scan stops at `maxBytes` read or
 * `maxMatches` found and says so.
 */
export async function searchPrompts(files: TranscriptFile[], query: string, opts: { maxBytes?: number; maxMatches?: number; perSession?: number } = {}): Promise<{ matches: PromptMatch[]; truncated: boolean }> {
  const q = query.trim().toLowerCase();
  const matches: PromptMatch[] = [];
  if (!q) return { matches, truncated: false };
  const maxBytes = opts.maxBytes ?? 512 * 1024 * 1024;
  const maxMatches = opts.maxMatches ?? 200;
  const perSession = opts.perSession ?? 3;
  let read = 0;
  for (const f of files) {
    if (read + f.size > maxBytes || matches.length >= maxMatches) return { matches, truncated: true };
    read += f.size;
    let found = 0;
    await readLines(f.path, (line) => {
      if (found >= perSession || line.bytes.indexOf(USER) === -1) return;
      const text = line.bytes.toString('utf8');
      if (!text.toLowerCase().includes(q)) return;
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        return;
      }
      if (!isObject(v) || v.type !== 'user' || typeof v.uuid !== 'string') return;
      const content = readUserContent(v);
      if (classifyUser(v, content) !== 'prompt') return;
      const at = content.text.toLowerCase().indexOf(q);
      if (at === -1) return;
      const start = Math.max(0, at - 30);
      matches.push({ transcriptPath: f.path, sessionId: f.sessionId, promptUuid: v.uuid, snippet: `${start > 0 ? '…' : ''}${oneLine(content.text.slice(start), 90)}` });
      found++;
    }).catch(() => undefined);
  }
  return { matches, truncated: false };
}
