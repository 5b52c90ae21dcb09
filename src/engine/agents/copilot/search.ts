import type { PromptLines } from '../../prompts/search.js';
import { copilotPromptText } from './parse.js';

export const COPILOT_PROMPTS: PromptLines = {
  // The value alone, whatever the spelling around it: the parse decides.
  marker: Buffer.from('"user.message"'),
  prompt: (v) => {
    const p = copilotPromptText(v);
    return p && typeof v.id === 'string' ? { uuid: v.id, text: p.text, timestamp: typeof v.timestamp === 'string' ? v.timestamp : null } : null;
  },
};
