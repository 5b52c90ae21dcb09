import { readdir, readFile, writeFile } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import type { FileEnds } from '../adapter.js';
import { isObject, str, classifyUser, readUserContent, parseCommand, type Json } from './classify.js';
import { HEAD_TAIL_BYTES, readHeadTail, type HeadTailInfo } from './head-tail.js';
import { oneLine } from '../../turn/text.js';
import { rm } from 'node:fs/promises';

// The reference: readHeadTail as it was before its lines were checked by the index's scanner
// (decoded windows, split into strings, each line searched as text). The scanner's version must
// give the same answer for any file and any window.
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
 * Can this raw line be a prompt or a command? A user line that is not a tool result (a tool result's
 * key is escaped inside any string, so only a real tool result carries it raw, as CLAUDE_PROMPTS says).
 */
const mayBeTyped = (raw: string) => raw.includes('"user"') && !raw.includes('"tool_use_id"');

/**
 * What a session list needs from a transcript, read from its first and last 64 KiB only, so
 * listing a thousand sessions never parses whole files.
 */
async function referenceHeadTail(path: string, size: number, window = HEAD_TAIL_BYTES, ends?: FileEnds): Promise<HeadTailInfo> {
  let head: string[];
  let tail: string[];
  const whole = size <= window * 2;
  // The caller read the ends already (the index's scan): parse those, if they cover the window.
  const given = ends && ends.size === size && ends.head.length >= Math.min(size, window * 2) && ends.tail.length >= Math.min(size, window);
  if (given && whole) {
    head = splitLines(ends.head.toString('utf8', 0, size), false, false);
    tail = head;
  } else if (given) {
    head = splitLines(ends.head.toString('utf8', 0, window), false, true);
    tail = splitLines(ends.tail.toString('utf8', ends.tail.length - window), true, false);
  } else {
    const fh = await open(path, 'r');
    try {
      if (whole) {
        const buf = Buffer.alloc(size);
        await fh.read(buf, 0, size, 0);
        head = splitLines(buf.toString('utf8'), false, false);
        tail = head;
      } else {
        const hb = Buffer.alloc(window);
        await fh.read(hb, 0, window, 0);
        const tb = Buffer.alloc(window);
        await fh.read(tb, 0, window, size - window);
        head = splitLines(hb.toString('utf8'), false, true);
        tail = splitLines(tb.toString('utf8'), true, false);
      }
    } finally {
      await fh.close();
    }
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
  // Lines are parsed only when they can still change something (most of both windows is tool
  // output): the result is the same as parsing every line.
  for (const raw of head) {
    const basics = info.sessionId !== null && info.cwd !== null && info.version !== null && info.firstTimestamp !== null;
    const wantUser = (!info.firstPrompt || !info.firstCommand) && mayBeTyped(raw);
    if (basics && !wantUser && (whole || !mayBeTitle(raw))) continue;
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
    const wantTitle = mayBeTitle(raw);
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

/** Every Claude transcript among the fixtures (real and public ones). */
async function claudeFiles(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name.endsWith('.jsonl') && (p.includes('claude') || p.includes(`${'public'}/claude`))) out.push(p);
    }
  };
  await walk(join(FIXTURES, 'claude-code-2.1.330'));
  await walk(join(FIXTURES, 'public'));
  return out.filter((p) => p.includes('claude'));
}

let dir: string;
beforeAll(async () => {
  dir = await tempDir('rewind-headtail-');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The file's ends as the index's scan hands them over (its first and last 32 KiB). */
function endsOf(bytes: Buffer): FileEnds {
  const E = 32 * 1024;
  return { size: bytes.length, head: bytes.subarray(0, Math.min(bytes.length, E)), tail: bytes.subarray(Math.max(0, bytes.length - E)) };
}

describe('readHeadTail', () => {
  it('gives what the text-based reading gave, on every Claude fixture and window, from the file or from the ends', async () => {
    const files = await claudeFiles();
    expect(files.length).toBeGreaterThan(8);
    let compared = 0;
    for (const path of files) {
      const bytes = await readFile(path);
      for (const window of [200, 1000, 4096, 16 * 1024, HEAD_TAIL_BYTES]) {
        const want = await referenceHeadTail(path, bytes.length, window);
        expect(await readHeadTail(path, bytes.length, window), `${path} window ${window}`).toEqual(want);
        if (window <= 16 * 1024) expect(await readHeadTail(path, bytes.length, window, endsOf(bytes)), `${path} window ${window}, ends`).toEqual(await referenceHeadTail(path, bytes.length, window, endsOf(bytes)));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(40);
  });

  it('gives the same on crafted windows: titles at the edges, cut multi-byte text, no final newline, empty lines', async () => {
    const line = (v: unknown) => JSON.stringify(v);
    const base = { isSidechain: false, cwd: '/w', sessionId: 's', version: '2.1.330' };
    const lines = [
      line({ type: 'summary', summary: 'Old summary', leafUuid: 'x' }),
      line({ ...base, parentUuid: null, type: 'user', message: { role: 'user', content: '<command-name>/init</command-name>\n<command-args></command-args>' }, uuid: 'c1', timestamp: 't0' }),
      line({ ...base, parentUuid: 'c1', type: 'user', message: { role: 'user', content: `première demande ${'é'.repeat(300)}` }, uuid: 'u1', timestamp: 't1' }),
      '',
      line({ ...base, parentUuid: 'u1', type: 'user', message: { role: 'user', content: [{ tool_use_id: 't', type: 'tool_result', content: 'x'.repeat(3000) }] }, uuid: 'r1', timestamp: 't2' }),
      line({ type: 'custom-title', customTitle: 'Named ☃', sessionId: 's' }),
      line({ type: 'ai-title', aiTitle: 'An AI title', sessionId: 's' }),
      line({ ...base, parentUuid: 'r1', type: 'user', message: { role: 'user', content: `last ask ${'ü'.repeat(500)}` }, uuid: 'u2', timestamp: 't3' }),
      line({ type: 'last-prompt', lastPrompt: 'last ask', leafUuid: 'u2', sessionId: 's' }),
      line({ ...base, parentUuid: 'u2', type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'done "user" title"' }] }, uuid: 'a1', timestamp: 't4' }),
    ];
    for (const [name, text] of [
      ['newline', `${lines.join('\n')}\n`],
      ['no final newline', lines.join('\n')],
      ['crlf', `${lines.join('\r\n')}\r\n`],
    ] as const) {
      const path = join(dir, `${name}.jsonl`);
      await writeFile(path, text);
      const size = Buffer.byteLength(text);
      // Windows of growing sizes, and windows whose tail starts exactly at a line (dropped all the same: it may be cut).
      const windows: number[] = [];
      for (let w = 64; w <= size; w = Math.ceil(w * 1.37)) windows.push(w);
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) windows.push(size - Buffer.byteLength(text.slice(0, at + 1)));
      for (const window of windows.filter((w) => w > 0 && w * 2 < size)) {
        expect(await readHeadTail(path, size, window), `${name} window ${window}`).toEqual(await referenceHeadTail(path, size, window));
      }
    }
  });
});
