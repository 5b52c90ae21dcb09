import type { PromptLines } from '../../prompt-search.js';
import { qwenPromptText } from './parse.js';

export const QWEN_PROMPTS: PromptLines = {
  marker: Buffer.from('"type":"user"'),
  prompt: (v) => {
    const p = qwenPromptText(v);
    return p && typeof v.uuid === 'string' ? { uuid: v.uuid, text: p.text } : null;
  },
};
