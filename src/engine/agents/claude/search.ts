import { searchPromptLines, type PromptMatch } from '../../prompts/search.js';
import { CLAUDE_PROMPTS } from './prompt-lines.js';
import type { TranscriptFile } from './discover.js';

export type { PromptMatch };


/** Human prompts containing `query` (case-insensitive) across Claude sessions, in the order given. */
export function searchPrompts(files: TranscriptFile[], query: string, opts: { maxBytes?: number; maxMatches?: number; perSession?: number } = {}): Promise<{ matches: PromptMatch[]; truncated: boolean }> {
  return searchPromptLines(files, query, CLAUDE_PROMPTS, { maxBytes: opts.maxBytes ?? 512 * 1024 * 1024, maxMatches: opts.maxMatches ?? 200, perSession: opts.perSession ?? 3 });
}
