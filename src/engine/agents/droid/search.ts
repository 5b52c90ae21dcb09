import type { PromptLines } from '../../prompts/search.js';
import { droidPromptText } from './parse.js';

/** Droid prompts are user `message` lines; the parser decides which are the user's words. */
export const DROID_PROMPTS: PromptLines = {
  // The value alone, whatever the spelling around it (`"type": "user"`, keys in any order): the parse decides.
  marker: Buffer.from('"user"'),
  prompt: (v) => {
    const p = droidPromptText(v);
    return p && typeof v.id === 'string' ? { uuid: v.id, text: p.text } : null;
  },
};
