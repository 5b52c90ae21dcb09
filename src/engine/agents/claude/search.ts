import { searchPromptLines, type PromptMatch } from '../../prompt-search.js';
import { classifyUser, readUserContent } from './classify.js';
import type { TranscriptFile } from './discover.js';

export type { PromptMatch };

export const CLAUDE_PROMPTS = {
  marker: Buffer.from('"user"'),
  prompt: (v: Record<string, unknown>) => {
    if (v.type !== 'user' || typeof v.uuid !== 'string') return null;
    const content = readUserContent(v);
    return classifyUser(v, content) === 'prompt' ? { uuid: v.uuid, text: content.text } : null;
  },
};

/** Human prompts containing `query` (case-insensitive) across Claude sessions, in the order given. */
export function searchPrompts(files: TranscriptFile[], query: string, opts: { maxBytes?: number; maxMatches?: number; perSession?: number } = {}): Promise<{ matches: PromptMatch[]; truncated: boolean }> {
  return searchPromptLines(files, query, CLAUDE_PROMPTS, { maxBytes: opts.maxBytes ?? 512 * 1024 * 1024, maxMatches: opts.maxMatches ?? 200, perSession: opts.perSession ?? 3 });
}
