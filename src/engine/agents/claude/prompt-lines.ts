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
  link: claudeLink,
};

// Search patterns whose first byte is rare in JSON text (Buffer.indexOf skips ahead to that byte),
// then the bytes around a hit are checked: several times faster than `"parentUuid":` over every line.
const UUID_KEY = Buffer.from('Uuid":');
const PARENT = Buffer.from('"parentUuid":');
const LOGICAL = Buffer.from('"logicalParentUuid":"');
const OWN = Buffer.from('uuid":"');
const SIDE = Buffer.from('Sidec');
const SIDE_TRUE = Buffer.from('"isSidechain":true');
/** parentUuid and isSidechain are among the first keys Claude writes: only the line's head is searched for them. */
const HEAD = 512;

function quoted(bytes: Buffer, at: number): string | null {
  const end = bytes.indexOf(34, at);
  return end === -1 ? null : bytes.toString('latin1', at, end);
}

function startsWithAt(bytes: Buffer, at: number, what: Buffer): boolean {
  if (at < 0 || at + what.length > bytes.length) return false;
  // A few bytes: a loop costs less than a call into Buffer.compare.
  for (let k = 0; k < what.length; k++) if (bytes[at + k] !== what[k]) return false;
  return true;
}

/** Where `"parentUuid":` starts in the line's head, or -1. */
function parentKey(bytes: Buffer): number {
  for (let i = bytes.indexOf(UUID_KEY); i !== -1 && i < HEAD; i = bytes.indexOf(UUID_KEY, i + 1)) {
    const at = i - 7; // `"parent` before `Uuid":`
    if (startsWithAt(bytes, at, PARENT)) return at + PARENT.length <= HEAD ? at : -1;
  }
  return -1;
}

function sidechain(bytes: Buffer): boolean {
  for (let i = bytes.indexOf(SIDE); i !== -1 && i < HEAD; i = bytes.indexOf(SIDE, i + 1)) {
    if (startsWithAt(bytes, i - 3, SIDE_TRUE) && i - 3 + SIDE_TRUE.length <= HEAD) return true;
  }
  return false;
}

/** The message's own `"uuid":"` (a top-level key: escaped quotes inside strings never match). */
function ownUuid(bytes: Buffer): number {
  for (let i = bytes.indexOf(OWN); i !== -1; i = bytes.indexOf(OWN, i + 1)) if (bytes[i - 1] === 34) return i + OWN.length;
  return -1;
}

/**
 * The last id read and its bytes: most messages continue the chain (their parent is the line just
 * before), so their parent is this same string, found by comparing bytes instead of making another.
 */
let lastId = '';
const lastIdBytes = Buffer.alloc(64);
let lastIdLen = 0;

/** The id quoted at `at` (its closing quote found), reusing the last id's string when the bytes are the same. */
function quotedId(bytes: Buffer, at: number): string | null {
  const n = lastIdLen;
  if (n > 0 && bytes[at + n] === 34 && at + n < bytes.length) {
    let k = 0;
    while (k < n && bytes[at + k] === lastIdBytes[k]) k++;
    // The same bytes up to a closing quote: the same id (an id holds no quote).
    if (k === n) return lastId;
  }
  return quoted(bytes, at);
}

function remember(bytes: Buffer, at: number, id: string): void {
  if (id.length > lastIdBytes.length) {
    lastIdLen = 0;
    return;
  }
  // A few bytes: a loop costs less than Buffer.copy's checks.
  for (let k = 0; k < id.length; k++) lastIdBytes[k] = bytes[at + k]!;
  lastIdLen = id.length;
  lastId = id;
}

/**
 * A message's uuid and parent straight from its bytes: Claude writes `parentUuid` first and its own
 * `uuid` as a top-level key (escaped quotes inside strings never match `"uuid":"`). A compaction's
 * boundary has no parent but names the message it follows (`logicalParentUuid`): the live path runs
 * on through it. Subagent (sidechain) lines are not on the session's path.
 */
function claudeLink(bytes: Buffer): { id: string; parent: string | null } | null {
  const p = parentKey(bytes);
  if (p === -1 || sidechain(bytes)) return null;
  const u = ownUuid(bytes);
  if (u === -1) return null;
  let parent = bytes[p + PARENT.length] === 34 ? quotedId(bytes, p + PARENT.length + 1) : null;
  const id = quoted(bytes, u);
  if (!id) return null;
  // latin1: one byte per char, so the id's bytes are id.length long.
  remember(bytes, u, id);
  if (parent === null) {
    const l = bytes.indexOf(LOGICAL);
    if (l !== -1) parent = quoted(bytes, l + LOGICAL.length);
  }
  return { id, parent };
}
