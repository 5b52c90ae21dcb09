import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_PROMPTS } from '../agents/claude/prompt-lines.js';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import { ENDS_BYTES, scanSession } from './scan-file.js';
import { decodeSegment, encodeSegment, encodeSegmentParts, fileMeta, filePrompts, fileSummary, openSegment, packPrompts, segmentFolded, segmentText, type FileMeta } from './segment.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rewind-scan-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Lines of about `lineBytes` each up to `size` bytes (the last one cut to fit, newline kept). */
function lines(size: number, lineBytes: number): Buffer {
  const out: string[] = [];
  let n = 0;
  for (let k = 0; n < size; k++) {
    const pad = 'x'.repeat(Math.max(0, Math.min(lineBytes, size - n) - 20));
    const l = `{"k":${k},"p":"${pad}"}\n`;
    out.push(l);
    n += l.length;
  }
  return Buffer.from(out.join('')).subarray(0, size);
}

describe('scanSession on a new file', () => {
  // Sizes around the ends' size and the read piece (1 MiB), where the last read is shortened so the tail is in it.
  const MiB = 1024 * 1024;
  const sizes = [0, 1, 100, ENDS_BYTES - 1, ENDS_BYTES, ENDS_BYTES + 1, 2 * ENDS_BYTES + 7, MiB - 3, MiB, MiB + 1, MiB + ENDS_BYTES - 1, MiB + ENDS_BYTES + 1, 3 * MiB + 12345];
  for (const size of sizes)
    for (const lineBytes of [200, 300_000])
      it(`gives the file's first and last ${ENDS_BYTES} bytes from its own reads (${size} bytes, lines of ${lineBytes})`, async () => {
        const bytes = lines(size, lineBytes);
        const path = join(dir, `s-${size}-${lineBytes}.jsonl`);
        await writeFile(path, bytes);
        const scan = scanSession(path, CLAUDE_PROMPTS, null);
        expect(scan.mode).toBe('full');
        expect(scan.ends.size).toBe(size);
        expect(Buffer.compare(scan.ends.head, bytes.subarray(0, Math.min(size, ENDS_BYTES)))).toBe(0);
        expect(Buffer.compare(scan.ends.tail, bytes.subarray(Math.max(0, size - ENDS_BYTES)))).toBe(0);
        const complete = bytes.lastIndexOf(10) + 1;
        expect(scan.state.indexedTo).toBe(complete);
        expect(scan.state.lineCount).toBe(bytes.subarray(0, complete).toString('latin1').split('\n').length - 1);
        scan.release();
      });

  it('reads a line of 12 MB after short ones: the input grows again and again, with or without new memory', async () => {
    const prompt = (k: number) => JSON.stringify({ type: 'user', uuid: `u${k}`, parentUuid: k ? `u${k - 1}` : null, sessionId: 's', message: { role: 'user', content: `prompt ${k}` } });
    const huge = JSON.stringify({ type: 'user', uuid: 'r', parentUuid: 'u1', sessionId: 's', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'y'.repeat(12 * 1024 * 1024) }] } });
    const path = join(dir, 'huge.jsonl');
    await writeFile(path, [prompt(0), prompt(1), huge, prompt(2), ''].join('\n'));
    // First a file of many messages: the thread's scanner keeps the memory their ids took, and the
    // input then grows inside it (the view of the input must be made again all the same).
    const many = join(dir, 'many.jsonl');
    await writeFile(many, Array.from({ length: 400_000 }, (_, k) => JSON.stringify({ type: 'assistant', uuid: `m-${k}-0000-4000-8000-000000000000`, parentUuid: k ? `m-${k - 1}-0000-4000-8000-000000000000` : null })).join('\n') + '\n');
    scanSession(many, CLAUDE_PROMPTS, null).release();
    for (let round = 0; round < 2; round++) {
      const scan = scanSession(path, CLAUDE_PROMPTS, null);
      expect(scan.prompts.map((p) => p.text)).toEqual(['prompt 0', 'prompt 1', 'prompt 2']);
      expect(scan.state.lineCount).toBe(4);
      scan.release();
    }
  });

  it("keeps each file's ends until it is released, then reuses the memory", async () => {
    const a = lines(3 * 1024 * 1024, 500);
    const b = Buffer.from(lines(2 * 1024 * 1024 + 99, 700).toString('latin1').replaceAll('x', 'y'), 'latin1');
    await writeFile(join(dir, 'a.jsonl'), a);
    await writeFile(join(dir, 'b.jsonl'), b);
    const sa = scanSession(join(dir, 'a.jsonl'), CLAUDE_PROMPTS, null);
    const sb = scanSession(join(dir, 'b.jsonl'), CLAUDE_PROMPTS, null);
    expect(Buffer.compare(sa.ends.head, a.subarray(0, ENDS_BYTES))).toBe(0);
    expect(Buffer.compare(sa.ends.tail, a.subarray(a.length - ENDS_BYTES))).toBe(0);
    expect(Buffer.compare(sb.ends.tail, b.subarray(b.length - ENDS_BYTES))).toBe(0);
    sa.release();
    sa.release();
    const sc = scanSession(join(dir, 'b.jsonl'), CLAUDE_PROMPTS, null);
    expect(sc.ends.head.buffer).toBe(sa.ends.head.buffer);
    expect(sc.ends.head.buffer).not.toBe(sb.ends.head.buffer);
    expect(Buffer.compare(sc.ends.head, b.subarray(0, ENDS_BYTES))).toBe(0);
    sb.release();
    sc.release();
  });
});

/** A segment file as written before `blockBytes`: its lazy part checked in 64 KiB blocks. */
function asOldBlocks(buf: Buffer): Buffer {
  const l1 = buf.indexOf(10);
  const l2 = buf.indexOf(10, l1 + 1);
  const [hLen, , eLen, lLen] = buf.toString('latin1', l1 + 1, l2).split(' ').map(Number) as [number, number, number, number];
  const header = JSON.parse(buf.toString('utf8', l2 + 1, l2 + 1 + hLen)) as { blockBytes?: number; lazyCrcs: number[] };
  const lazy = buf.subarray(l2 + 1 + hLen + eLen);
  delete header.blockBytes;
  header.lazyCrcs = [];
  for (let k = 0; k * 65536 < lazy.length; k++) header.lazyCrcs.push(crc32(lazy.subarray(k * 65536, (k + 1) * 65536)));
  const hb = Buffer.from(JSON.stringify(header));
  return Buffer.concat([buf.subarray(0, l1 + 1), Buffer.from(`${hb.length} ${crc32(hb)} ${eLen} ${lLen}\n`), hb, buf.subarray(l2 + 1 + hLen)]);
}

describe('a segment written from its parts', () => {
  it('is the same file and the same segment as one buffer decoded', async () => {
    const summary = { id: 's', agent: 'claude', title: 'hi', cwd: '/w', projectDir: '/p', transcriptPath: '/p/s.jsonl', promptCount: 1, livePromptCount: 1, firstPrompt: 'hi', lastPrompt: 'hi', createdAt: null, lastActivity: new Date(0).toISOString(), sizeBytes: 3, version: null, live: false, forkOf: null } as const;
    const input = {
      base: true,
      files: [
        {
          mode: 'full' as const,
          path: '/p/s.jsonl',
          agent: 'claude',
          sessionId: 's',
          fp: { size: 3, mtimeMs: 1, ino: 2, head: 'h', headLen: 3 },
          from: 0,
          indexedTo: 3,
          lineCount: 1,
          counts: { total: 2, live: 1 },
          summary,
          meta: { prompts: [['u1', 0, null], ['u2', 9, 't']] as [string, number, string | null][], recent: { u2: 1 }, leaf: 'u2' },
          packed: packPrompts(['Hello Café', 'zweite ' + 'ü'.repeat(70_000)], ['hello cafe', 'zweite ' + 'u'.repeat(70_000)]),
        },
      ],
    };
    const enc = encodeSegmentParts(input);
    const path = join(dir, 'seg.idx');
    await writeCacheFileAtomic(path, enc.parts);
    const onDisk = await readFile(path);
    expect(Buffer.compare(onDisk, encodeSegment(input))).toBe(0);
    const made = enc.segment('seg.idx');
    const read = decodeSegment('seg.idx', onDisk);
    // As written before blocks had their size in the header (64 KiB each): read the same way.
    const old = asOldBlocks(onDisk);
    expect(old.length).not.toBe(onDisk.length);
    await writeFile(join(dir, 'old.idx'), old);
    for (const s of [made, read, decodeSegment('old.idx', old), openSegment('old.idx', join(dir, 'old.idx'))]) {
      expect(s.files).toEqual(read.files);
      expect(segmentText(s, 1)).toBe('zweite ' + 'ü'.repeat(70_000));
      expect(segmentFolded(s, 0)).toBe('hello cafe');
      expect(fileMeta(s, 0)).toEqual(input.files[0]!.meta);
      expect(fileSummary(s, 0)).toEqual(summary);
    }
  });
});

describe("a search hit's prompt entry", () => {
  it('is read up to the last one wanted, the same as from the whole meta, for ids and timestamps of any shape', () => {
    const ids = ['2ea8980a-26fe-4928-aab5-4ebf6074b664', 'codex:3', 'with "quotes" and \\ backslash', 'ünïcödé ☃ 𝄞', '[1,2]', 'a],["b",1,null]', ''];
    const prompts: FileMeta['prompts'] = ids.map((id, k) => [id, k * 1000 + 7, k % 3 === 0 ? null : `2026-11-0${k}T00:00:00.000Z "x"`]);
    const seg = decodeSegment('p.idx', encodeSegment({
      base: true,
      files: [{ mode: 'full', path: '/p/s.jsonl', agent: 'claude', sessionId: 's', fp: { size: 1, mtimeMs: 1, ino: 1, head: 'h', headLen: 1 }, from: 0, indexedTo: 1, lineCount: 1, counts: { total: ids.length, live: ids.length }, summary: null, meta: { prompts, recent: { x: 1 }, leaf: 'x' }, packed: packPrompts(ids.map(() => 't'), ids.map(() => 't')) }],
    }));
    const all = fileMeta(seg, 0).prompts;
    expect(all).toEqual(prompts);
    for (const wanted of [[0], [ids.length - 1], [2, 5], ids.map((_, k) => k), []]) {
      const got = filePrompts(seg, 0, wanted);
      expect([...got.keys()].sort()).toEqual([...wanted].sort());
      for (const k of wanted) expect(got.get(k)).toEqual(all[k]);
    }
  });

  it('the entries of a long session are read from whichever end is nearer, the same as from the whole meta', () => {
    // Thousands of entries (a window of the end is read, then a bigger one), ids of every shape,
    // multi-byte ones where a window may start inside a character.
    const shapes = ['a],["b",1,null]', 'with "quotes" \\', 'ünïcödé ☃ 𝄞'.repeat(3), '[1,2]', 'plain'];
    const n = 3000;
    const prompts: FileMeta['prompts'] = Array.from({ length: n }, (_, k) => [`${shapes[k % shapes.length]}-${k}`, k * 31, k % 4 === 0 ? null : `2026-11-01T00:00:${String(k % 60).padStart(2, '0')}.000Z`]);
    const seg = decodeSegment('long.idx', encodeSegment({
      base: true,
      files: [{ mode: 'full', path: '/p/l.jsonl', agent: 'claude', sessionId: 'l', fp: { size: 1, mtimeMs: 1, ino: 1, head: 'h', headLen: 1 }, from: 0, indexedTo: 1, lineCount: 1, counts: { total: n, live: n }, summary: null, meta: { prompts, recent: { 'a],["b"': 1, z: 2 }, leaf: 'a]],"recent":' }, packed: packPrompts(prompts.map(() => 't'), prompts.map(() => 't')) }],
    }));
    for (const wanted of [[n - 1], [n - 1, n - 2, n - 3], [n - 1, n / 2], [n / 2 + 1, n - 7], [n / 2], [0], [2], [5, 1200], [n / 2 - 1], [0, n - 1], Array.from({ length: n }, (_, k) => k)]) {
      const got = filePrompts(seg, 0, wanted);
      expect([...got.keys()].sort((x, y) => x - y)).toEqual([...wanted].sort((x, y) => x - y));
      for (const k of wanted) expect(got.get(k), `entry ${k}`).toEqual(prompts[k]);
    }
  });
});
