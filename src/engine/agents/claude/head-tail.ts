import { open } from 'node:fs/promises';
import { isObject, str, classifyUser, readUserContent, parseCommand, type Json } from './classify.js';
import { oneLine } from '../../turn/text.js';
import type { FileEnds } from '../adapter.js';
import { lineScanner } from '../../search-index/line-scanner.js';

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

function parseLine(raw: string): Json | null {
  try {
    const v: unknown = JSON.parse(raw);
    return isObject(v) ? v : null;
  } catch {
    // Cut or broken lines at the window edges are expected.
    return null;
  }
}

/**
 * What is looked for in each line of a window before any line is decoded or parsed: a user line
 * that is not a tool result (a tool result's key is escaped inside any string, so only a real tool
 * result carries it raw, as CLAUDE_PROMPTS says) can be a prompt or a command; `title"` or
 * `"summary"` can be a title (custom-title, ai-title, summary); `"last-prompt"` names the last prompt.
 */
const PATTERNS = ['"user"', '"tool_use_id"', 'title"', '"summary"', '"last-prompt"'].map((p) => Buffer.from(p));
const USER = 1;
const TOOL_RESULT = 2;
const TITLE = 4 | 8;
const LAST_PROMPT = 16;

/** A window's lines, each decoded only when parsed. */
interface WindowLine {
  bits: number;
  raw(): string;
}

function windowLines(bytes: Buffer, dropFirst: boolean, dropLast: boolean): WindowLine[] {
  return lineScanner()
    .windowLines(bytes, PATTERNS, dropFirst, dropLast)
    .map(({ start, end, bits }) => ({ bits, raw: () => bytes.toString('utf8', start, end) }));
}

const mayBeTitle = (l: WindowLine) => (l.bits & TITLE) !== 0;
const mayBeTyped = (l: WindowLine) => (l.bits & (USER | TOOL_RESULT)) === USER;

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
  const head = windowLines(headBytes, false, tailBytes !== null);
  const tail = tailBytes === null ? head : windowLines(tailBytes, true, false);
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
  for (const line of head) {
    const basics = info.sessionId !== null && info.cwd !== null && info.version !== null && info.firstTimestamp !== null;
    const wantUser = (!info.firstPrompt || !info.firstCommand) && mayBeTyped(line);
    if (basics && !wantUser && (whole || !mayBeTitle(line))) continue;
    const e = parseLine(line.raw());
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
    const line = tail[k]!;
    const wantPrompt = needPrompt && ((line.bits & LAST_PROMPT) !== 0 || mayBeTyped(line));
    const wantTitle = mayBeTitle(line);
    if (!needTs && !wantPrompt && !wantTitle) continue;
    const e = parseLine(line.raw());
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
    for (const line of tail) {
      const e = parseLine(line.raw());
      if (!e) continue;
      if (!info.cwd && e.isSidechain !== true) info.cwd = str(e.cwd) ?? null;
      if (!info.version) info.version = str(e.version) ?? null;
    }
  }
  return info;
}
