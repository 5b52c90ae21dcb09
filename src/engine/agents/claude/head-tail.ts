import { open } from 'node:fs/promises';
import { isObject, str, classifyUser, readUserContent, parseCommand, type Json } from './classify.js';
import { oneLine } from '../../turn-text.js';

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

function parseLines(text: string, dropFirst: boolean, dropLast: boolean): Json[] {
  const parts = text.split('\n');
  if (dropFirst) parts.shift();
  if (dropLast) parts.pop();
  const out: Json[] = [];
  for (const p of parts) {
    if (!p) continue;
    try {
      const v: unknown = JSON.parse(p);
      if (isObject(v)) out.push(v);
    } catch {
      // Cut or broken lines at the window edges are expected.
    }
  }
  return out;
}

/**
 * What a session list needs from a transcript, read from its first and last 64 KiB only, so
 * listing a thousand sessions never parses whole files.
 */
export async function readHeadTail(path: string, size: number, window = HEAD_TAIL_BYTES): Promise<HeadTailInfo> {
  const fh = await open(path, 'r');
  let head: Json[];
  let tail: Json[];
  const whole = size <= window * 2;
  try {
    if (whole) {
      const buf = Buffer.alloc(size);
      await fh.read(buf, 0, size, 0);
      head = parseLines(buf.toString('utf8'), false, false);
      tail = head;
    } else {
      const hb = Buffer.alloc(window);
      await fh.read(hb, 0, window, 0);
      const tb = Buffer.alloc(window);
      await fh.read(tb, 0, window, size - window);
      head = parseLines(hb.toString('utf8'), false, true);
      tail = parseLines(tb.toString('utf8'), true, false);
    }
  } finally {
    await fh.close();
  }
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
  for (const e of head) {
    if (e.isSidechain === true) continue;
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
  for (const e of tail) {
    scanTitles(e);
    const ts = str(e.timestamp);
    if (ts && e.isSidechain !== true) info.lastTimestamp = ts;
    if (e.type === 'last-prompt' && typeof e.lastPrompt === 'string') info.lastPrompt = oneLine(e.lastPrompt, 200);
    else if (e.type === 'user' && e.isSidechain !== true) {
      const content = readUserContent(e);
      if (classifyUser(e, content) === 'prompt') info.lastPrompt = oneLine(content.text, 200);
    }
    if (!info.cwd && e.isSidechain !== true) info.cwd = str(e.cwd) ?? null;
    if (!info.version) info.version = str(e.version) ?? null;
  }
  return info;
}
