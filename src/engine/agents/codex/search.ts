import { searchPromptLines, type PromptMatch } from '../../prompt-search.js';
import { rolloutIdFromPath, type RolloutFile } from './discover.js';
import { promptOfItem } from './prompts.js';

export const CODEX_PROMPTS = {
  marker: Buffer.from('"user"'),
  prompt: (v: Record<string, unknown>, offset: number) => {
    // The history item (what the timeline names a prompt by, where its line starts); an older
    // rollout's duplicate `user_message` event is not matched twice.
    const p = v.type === 'response_item' ? promptOfItem(v.payload as Record<string, unknown> | undefined) : null;
    return p ? { uuid: `codex:${offset}`, text: p.text } : null;
  },
};

/** Codex prompts containing `query` (case-insensitive), newest rollouts first. */
export function searchRollouts(files: RolloutFile[], query: string, opts: { maxBytes?: number; perSession?: number } = {}): Promise<{ matches: PromptMatch[]; truncated: boolean }> {
  const newest = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs).map((f) => ({ ...f, sessionId: rolloutIdFromPath(f.path) }));
  return searchPromptLines(newest, query, CODEX_PROMPTS, { maxBytes: opts.maxBytes ?? 256 * 1024 * 1024, maxMatches: Number.POSITIVE_INFINITY, perSession: opts.perSession ?? 3 });
}
