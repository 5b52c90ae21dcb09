import { classifyUser, readUserContent } from './classify.js';

/** How search finds a human prompt among Claude's lines (only lines mentioning "user" are parsed). */
export const CLAUDE_PROMPTS = {
  marker: Buffer.from('"user"'),
  prompt: (v: Record<string, unknown>) => {
    if (v.type !== 'user' || typeof v.uuid !== 'string') return null;
    const content = readUserContent(v);
    return classifyUser(v, content) === 'prompt' ? { uuid: v.uuid, text: content.text } : null;
  },
};
