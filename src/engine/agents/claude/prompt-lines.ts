import { classifyUser, readUserContent } from './classify.js';

/** How search finds a human prompt among Claude's lines (only lines mentioning "user" are parsed). */
export const CLAUDE_PROMPTS = {
  marker: Buffer.from('"user"'),
  // A tool result's key: escaped inside any string, so only a real tool result carries it raw.
  notPrompt: Buffer.from('"tool_use_id"'),
  prompt: (v: Record<string, unknown>) => {
    if (v.type !== 'user' || typeof v.uuid !== 'string') return null;
    const content = readUserContent(v);
    return classifyUser(v, content) === 'prompt' ? { uuid: v.uuid, text: content.text, timestamp: typeof v.timestamp === 'string' ? v.timestamp : null } : null;
  },
  link: claudeLink,
};

const UUID = Buffer.from('"uuid":"');
const PARENT = Buffer.from('"parentUuid":');
const LOGICAL = Buffer.from('"logicalParentUuid":"');
const SIDECHAIN = Buffer.from('"isSidechain":true');

function quoted(bytes: Buffer, at: number): string | null {
  const end = bytes.indexOf(34, at);
  return end === -1 ? null : bytes.toString('latin1', at, end);
}

/**
 * A message's uuid and parent straight from its bytes: Claude writes `parentUuid` first and its own
 * `uuid` as a top-level key (escaped quotes inside strings never match `"uuid":"`). A compaction's
 * boundary has no parent but names the message it follows (`logicalParentUuid`): the live path runs
 * on through it. Subagent (sidechain) lines are not on the session's path.
 */
function claudeLink(bytes: Buffer): { id: string; parent: string | null } | null {
  // parentUuid and isSidechain are the first keys Claude writes: look only at the line's head.
  const head = bytes.subarray(0, 512);
  const p = head.indexOf(PARENT);
  if (p === -1 || head.indexOf(SIDECHAIN) !== -1) return null;
  const u = bytes.indexOf(UUID);
  if (u === -1) return null;
  const id = quoted(bytes, u + UUID.length);
  if (!id) return null;
  let parent = bytes[p + PARENT.length] === 34 ? quoted(bytes, p + PARENT.length + 1) : null;
  if (parent === null) {
    const l = bytes.indexOf(LOGICAL);
    if (l !== -1) parent = quoted(bytes, l + LOGICAL.length);
  }
  return { id, parent };
}

