import { open } from 'node:fs/promises';
import { isObject, str, classifyUser, readUserContent, parseCommand, type Json } from './classify.js';
import { oneLine } from '../../turn-text.js';
import type { FileEnds } from '../adapter.js';

export const HEAD_TAIL_BYTES = 64 * 1024;

export interface HeadTailInfo {
  sessionId: string | null;
  cwd: string | null;
  version: string | null;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  firstPrompt: string | null;
  firstCommand: string | null;
  lastPrompt: string | null;
  customTitle: string | null;
  aiTitle: string | null;
  summary: string | null;
  /** Both ends were read and together they are the whole file. */
  whole: boolean;
}

/** The window's lines, unparsed (the first and last may be cut by the window). */
function splitLines(text: string, dropFirst: boolean, dropLast: boolean): string[] {
  const parts = text.split('\n');
  if (dropFirst) parts.shift();
  if (dropLast) parts.pop();
  return parts.filter((p) => p.length > 0);
}

function parseLine(raw: string): Json | null {
  try {
    const v: unknown = JSON.parse(raw);
    return isObject(v) ? v : null;
  } catch {
    // Cut or broken lines at the window edges are expected.
    return null;
  }
}

/** Can this raw line be a title (custom-title, ai-title, summary)? Only such lines are parsed for titles. */
const mayBeTitle = (raw: string) => raw.includes('title"') || raw.includes('"summary"');
/**
 * Can any line of this window be a title? A custom or AI title is read from its `customTitle` or
 * `aiTitle` key, so its line holds `Title"` (a capital T is rare in JSON: the search skips ahead
 * far faster than for `title"`). Most windows have none, and skip the check on every line.
 */
const windowMayHaveTitles = (b: Buffer) => b.indexOf('Title"') !== -1 || b.indexOf('"summary"') !== -1;
/**
 * Can this raw line be a prompt or a command? A user line that is not a tool result (a tool result's
 * key is escaped inside any string, so only a real tool result carries it raw, as CLAUDE_PROMPTS says).
 */
const mayBeTyped = (raw: string) => raw.includes('"user"') && !raw.includes('"tool_use_id"');

/**
 * What a session list needs from a transcript, read from its first and last 64 KiB only, so
 * listing a thousand sessions never parses whole files.
 */
export async function readHeadTail(path: string, size: number, window = HEAD_TAIL_BYTES, ends?: FileEnds): Promise<HeadTailInfo> {
  // Each window's bytes; with two windows, the head's last line and the tail's first may be cut.
  let headBytes: Buffer;
  let tailBytes: Buffer | null = null;
  const whole = size <= window * 2;
  // The caller read the ends already (the index's scan): parse those, if they cover the window.
  const given = ends && ends.size === size && ends.head.length >= Math.min(size, window * 2) && ends.tail.length >= Math.min(size, window);
  if (given && whole) headBytes = ends.head.subarray(0, size);
  else if (given) {
    headBytes = ends.head.subarray(0, window);
    tailBytes = ends.tail.subarray(ends.tail.length - window);
  } else {
    const fh = await open(path, 'r');
    try {
      if (whole) {
        headBytes = Buffer.alloc(size);
        await fh.read(headBytes, 0, size, 0);
      } else {
        headBytes = Buffer.alloc(window);
        await fh.read(headBytes, 0, window, 0);
        tailBytes = Buffer.alloc(window);
        await fh.read(tailBytes, 0, window, size - window);
      }
    } finally {
      await fh.close();
    }
  }
  const head = splitLines(headBytes.toString('utf8'), false, tailBytes !== null);
  const tail = tailBytes === null ? head : splitLines(tailBytes.toString('utf8'), true, false);
  const headTitles = !whole && windowMayHaveTitles(headBytes);
  const tailTitles = windowMayHaveTitles(tailBytes ?? headBytes);
  const info: HeadTailInfo = {
    sessionId: null,
    cwd: null,
    version: null,
    firstTimestamp: null,
    lastTimestamp: null,
    firstPrompt: null,
    firstCommand: null,
    lastPrompt: null,
    customTitle: null,
    aiTitle: null,
    summary: null,
    whole,
  };
  const scanTitles = (e: Json) => {
    if (e.type === 'custom-title') info.customTitle = str(e.customTitle) ?? info.customTitle;
    else if (e.type === 'ai-title') info.aiTitle = str(e.aiTitle) ?? info.aiTitle;
    else if (e.type === 'summary') info.summary = str(e.summary) ?? info.summary;
  };
  // Lines are parsed only when they can still change something (most of both windows is tool
  // output): the result is the same as parsing every line.
  for (const raw of head) {
    const basics = info.sessionId !== null && info.cwd !== null && info.version !== null && info.firstTimestamp !== null;
    const wantUser = (!info.firstPrompt || !info.firstCommand) && mayBeTyped(raw);
    if (basics && !wantUser && (!headTitles || !mayBeTitle(raw))) continue;
    const e = parseLine(raw);
    if (!e || e.isSidechain === true) continue;
    info.sessionId ??= str(e.sessionId) ?? null;
    info.cwd ??= str(e.cwd) ?? null;
    info.version ??= str(e.version) ?? null;
    info.firstTimestamp ??= str(e.timestamp) ?? null;
    if (e.type === 'user' && (!info.firstPrompt || !info.firstCommand)) {
      const content = readUserContent(e);
      const kind = classifyUser(e, content);
      if (kind === 'prompt') info.firstPrompt ??= oneLine(content.text, 200);
      else if (kind === 'command') {
        const c = parseCommand(content.text);
        if (c) info.firstCommand ??= oneLine(`${c.name} ${c.args}`, 200);
      }
    }
    if (!whole) scanTitles(e);
  }
  // The tail from its end: the last timestamp, the last prompt and the last title of each kind win.
  let needTs = true;
  let needPrompt = true;
  const titled = new Set<unknown>();
  for (let k = tail.length - 1; k >= 0; k--) {
    const raw = tail[k]!;
    const wantPrompt = needPrompt && (raw.includes('"last-prompt"') || mayBeTyped(raw));
    const wantTitle = tailTitles && mayBeTitle(raw);
    if (!needTs && !wantPrompt && !wantTitle) continue;
    const e = parseLine(raw);
    if (!e) continue;
    if (wantTitle && !titled.has(e.type)) {
      const v = e.type === 'custom-title' ? e.customTitle : e.type === 'ai-title' ? e.aiTitle : e.type === 'summary' ? e.summary : undefined;
      if (str(v) !== undefined) {
        scanTitles(e);
        titled.add(e.type);
      }
    }
    const ts = str(e.timestamp);
    if (needTs && ts && e.isSidechain !== true) {
      info.lastTimestamp = ts;
      needTs = false;
    }
    if (!wantPrompt) continue;
    if (e.type === 'last-prompt' && typeof e.lastPrompt === 'string') {
      info.lastPrompt = oneLine(e.lastPrompt, 200);
      needPrompt = false;
    } else if (e.type === 'user' && e.isSidechain !== true) {
      const content = readUserContent(e);
      if (classifyUser(e, content) === 'prompt') {
        info.lastPrompt = oneLine(content.text, 200);
        needPrompt = false;
      }
    }
  }
  if (!info.cwd || !info.version) {
    for (const raw of tail) {
      const e = parseLine(raw);
      if (!e) continue;
      if (!info.cwd && e.isSidechain !== true) info.cwd = str(e.cwd) ?? null;
      if (!info.version) info.version = str(e.version) ?? null;
    }
  }
  return info;
}
