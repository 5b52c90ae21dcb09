import { searchPromptLines, type PromptMatch } from '../../prompts/search.js';
import { rolloutIdFromPath, type RolloutFile } from './discover.js';
import { CODEX_PROMPTS } from './prompts.js';


/** Codex prompts containing `query` (case-insensitive), newest rollouts first. */
export function searchRollouts(files: RolloutFile[], query: string, opts: { maxBytes?: number; perSession?: number } = {}): Promise<{ matches: PromptMatch[]; truncated: boolean }> {
  const newest = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs).map((f) => ({ ...f, sessionId: rolloutIdFromPath(f.path) }));
  return searchPromptLines(newest, query, CODEX_PROMPTS, { maxBytes: opts.maxBytes ?? 256 * 1024 * 1024, maxMatches: Number.POSITIVE_INFINITY, perSession: opts.perSession ?? 3 });
}
