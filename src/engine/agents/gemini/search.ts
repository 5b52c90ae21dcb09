import type { PromptLines } from '../../prompts/search.js';
import { geminiPromptText } from './replay.js';

/** Prompt records as written (a `$set` of the whole list repeats them: those lines are not searched). */
export const GEMINI_PROMPTS: PromptLines = {
  // The value alone, whatever the spelling around it (`"type": "user"`, keys in any order): the parse decides.
  marker: Buffer.from('"user"'),
  prompt: (v) => {
    if ('$set' in v) return null;
    const p = geminiPromptText(v);
    return p && typeof v.id === 'string' ? { uuid: v.id, text: p.text } : null;
  },
};
