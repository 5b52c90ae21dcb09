import type { PromptLines } from '../../prompts/search.js';
import { qwenPromptText } from './parse.js';

export const QWEN_PROMPTS: PromptLines = {
  // The value alone, whatever the spelling around it (`"type": "user"`, keys in any order): the parse decides.
  marker: Buffer.from('"user"'),
  prompt: (v) => {
    const p = qwenPromptText(v);
    return p && typeof v.uuid === 'string' ? { uuid: v.uuid, text: p.text } : null;
  },
  // Each line names its parent as Claude Code's do: the list counts the live path as the timeline does (a native /rewind leaves a branch).
  links: { parent: '"parentUuid":', own: '"uuid":"', headBytes: 512 },
};
