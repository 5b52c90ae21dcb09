import { classifyUser, readUserContent } from './classify.js';

/** How search finds a human prompt among Claude's lines (only lines mentioning "user" are parsed). */
export const CLAUDE_PROMPTS = {
  // In every prompt line ("type":"user"); without the opening quote the search skips ahead on a
  // letter instead of on every quote of the JSON (measured: a fifth less time over a history).
  marker: Buffer.from('user"'),
  // A tool result's key: escaped inside any string, so only a real tool result carries it raw.
  notPrompt: Buffer.from('"tool_use_id"'),
  prompt: (v: Record<string, unknown>) => {
    if (v.type !== 'user' || typeof v.uuid !== 'string') return null;
    const content = readUserContent(v);
    return classifyUser(v, content) === 'prompt' ? { uuid: v.uuid, text: content.text, timestamp: typeof v.timestamp === 'string' ? v.timestamp : null } : null;
  },
  // Claude writes parentUuid and isSidechain among the first keys, and its own uuid as a top-level
  // key (escaped quotes inside strings never match `"uuid":"`). A compaction's boundary has no
  // parent but names the message it follows (logicalParentUuid): the live path runs on through it.
  // Subagent (sidechain) lines are not on the session's path.
  links: { parent: '"parentUuid":', own: '"uuid":"', exclude: '"isSidechain":true', fallbackParent: '"logicalParentUuid":"', headBytes: 512 },
};
