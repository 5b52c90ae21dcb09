import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, truncate, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADAPTERS } from '../agents/registry.js';
import { fold, foldWithMap, highlight, parseQuery } from './fold.js';
import { rareByteAt, SearchIndex, type Source } from './search-index.js';

let dir: string;
let root: string;
let cache: string;
let sources: Source[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rewind-ix-'));
  root = join(dir, 'claude');
  cache = join(dir, 'cache');
  await mkdir(join(root, 'projects', '-work-a'), { recursive: true });
  sources = [{ adapter: ADAPTERS.claude, root }];
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A Claude Code session as lines: each prompt gets a reply; `branchAt` re-asks from that prompt's parent. */
class Session {
  lines: string[] = [];
  parent: string | null = null;
  readonly id = randomUUID();
  constructor(readonly cwd = '/work/a') {}
  prompt(text: string, parent: string | null = this.parent): string {
    const u = randomUUID();
    const base = { isSidechain: false, userType: 'external', cwd: this.cwd, sessionId: this.id, version: '2.1.330' };
    this.lines.push(JSON.stringify({ ...base, parentUuid: parent, type: 'user', message: { role: 'user', content: text }, uuid: u, timestamp: new Date().toISOString() }));
    const a = randomUUID();
    // A tool result mentioning the same words never matches: prompts only.
    this.lines.push(JSON.stringify({ ...base, parentUuid: u, type: 'assistant', uuid: a, message: { role: 'assistant', content: [{ type: 'text', text: `ok ${text}` }] } }));
    const r = randomUUID();
    this.lines.push(JSON.stringify({ ...base, parentUuid: a, type: 'user', uuid: r, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: `result ${text}` }] } }));
    this.parent = r;
    return u;
  }
  get path(): string {
    return join(root, 'projects', '-work-a', `${this.id}.jsonl`);
  }
  text(): string {
    return this.lines.map((l) => `${l}\n`).join('');
  }
  async write(): Promise<void> {
    await writeFile(this.path, this.text());
  }
}

const open = () => SearchIndex.open(cache);

describe('fold and highlight', () => {
  it('ignores case and accents in any script, keeps letters', () => {
    expect(fold('Crème BRÛLÉE')).toBe('creme brulee');
    expect(fold('ΟΔΟΣ')).toBe(fold('οδοσ'));
    expect(fold('Ｆｕｌｌ  width\n\tspaces')).toBe('full width spaces');
    expect(fold('日本語のテキスト')).toBe('日本語のテキスト');
    expect(parseQuery('"Big  Cat" dog').terms).toEqual(['big cat', 'dog']);
  });

  it('folds white space in ASCII text as in any other: every run is one space', () => {
    const ascii = ' A  b\tc\n\nD \r\n e\f\vF  ';
    expect(fold(ascii)).toBe(' a b c d e f ');
    // The same text with one accented letter takes the general path: same white space.
    expect(fold(`${ascii}é`)).toBe(' a b c d e f e');
  });
  it('maps ASCII text back to the original as the general path does, white space runs and all', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    const alphabet = 'aB c\t\n\r\f\vXz  .';
    for (let t = 0; t < 200; t++) {
      const s = Array.from({ length: 1 + rand(40) }, () => alphabet[rand(alphabet.length)]).join('');
      const ascii = foldWithMap(s);
      // With one letter beyond ASCII at the end, the general path runs: the ASCII part must agree.
      const general = foldWithMap(`${s}é`);
      expect(ascii.folded).toBe(fold(s));
      expect(general.folded.startsWith(ascii.folded)).toBe(true);
      for (let i = 0; i < ascii.folded.length; i++) {
        expect(ascii.start(i), `${JSON.stringify(s)} start ${i}`).toBe(general.start(i));
        expect(ascii.end(i), `${JSON.stringify(s)} end ${i}`).toBe(general.end(i));
      }
    }
    const h = highlight('Fix  the\t\tBIG  bug', parseQuery('"the big"').terms);
    expect(h.snippet.slice(h.highlights[0]![0], h.highlights[0]![1])).toBe('the  BIG');
  });

  it('places highlights on the original text', () => {
    const h = highlight('Fix the Crème brûlée bug', parseQuery('creme').terms);
    expect(h.snippet.slice(h.highlights[0]![0], h.highlights[0]![1])).toBe('Crème');
  });
});

describe('SearchIndex', () => {
  it('finds every prompt (words, phrases, accents, scripts), grouped by session with counts; tool results never match', async () => {
    const a = new Session();
    a.prompt('Make the Café page load faster');
    a.prompt('the cafe menu needs prices');
    a.prompt('日本語 の ドキュメント を書いて');
    await a.write();
    const b = new Session();
    b.prompt('unrelated words here');
    await b.write();
    const ix = await open();
    await ix.refresh(sources);
    const r = ix.search('CAFE');
    expect(r.sessions.map((s) => s.transcriptPath)).toEqual([a.path]);
    expect(r.sessions[0]!.count).toBe(2);
    expect(r.notSearched).toEqual([]);
    expect(ix.search('"page load"').totalHits).toBe(1);
    expect(ix.search('"load page"').totalHits).toBe(0);
    expect(ix.search('ドキュメント').totalHits).toBe(1);
    expect(ix.search('result').totalHits).toBe(0); // only in tool results
    expect(ix.search('ok').totalHits).toBe(0); // only in replies
    const hit = r.sessions[0]!.prompts[0]!;
    expect(hit.snippet!.slice(...hit.highlights[0]!).toLowerCase()).toBe('cafe');
  });

  it('finds a word from its rarest byte as a plain scan does: at the ends of prompts, after near misses, in every prompt of a run', async () => {
    const texts = ['refactor', 'xfactor then refactor', 'efactor rfactor refacto', 'the end is refactor', 'refactorrefactor', 'ünï refactor ☃', 'factor', 're factor', 'REFACTOR the Factory', 'a'];
    const s = new Session();
    for (const t of texts) s.prompt(t);
    await s.write();
    const ix = await open();
    await ix.refresh(sources);
    expect(rareByteAt(Buffer.from('refactor'))).toBe(2);
    expect(rareByteAt(Buffer.from('zebra'))).toBe(0);
    for (const q of ['refactor', 'factor', 'actor', '"re factor"', 'refactor the', 'r', 'fac', 'zz', 'ünï', '☃']) {
      const terms = parseQuery(q).terms;
      const expected = texts.filter((t) => terms.every((w) => fold(t).includes(w))).length;
      expect(ix.search(q).totalHits, q).toBe(expected);
    }
  });

  it('a list that shows no total counts only the sessions it lists, the same counts as a full count', async () => {
    const made: Session[] = [];
    for (let i = 0; i < 6; i++) {
      const s = new Session(i % 2 ? '/work/a' : '/work/b');
      for (let k = 0; k <= i; k++) s.prompt(k % 2 ? `plain ${k}` : `kumquat ${i} ${k} kumquat`);
      s.prompt('kumquat at the end');
      await s.write();
      made.push(s);
    }
    const ix = await open();
    await ix.refresh(sources);
    for (const opts of [{ limit: 2 }, { limit: 1 }, { limit: 5 }, { limit: 2, project: '/work/a' }, { limit: 9 }]) {
      const full = ix.search('kumquat', opts);
      const listed = ix.search('kumquat', { ...opts, countPastLimit: false });
      expect(listed.sessions, JSON.stringify(opts)).toEqual(full.sessions);
      expect(listed.moreSessions).toBe(full.moreSessions);
      expect(listed.totalHits).toBe(full.sessions.reduce((n, x) => n + x.count, 0));
      expect(full.totalHits).toBeGreaterThanOrEqual(listed.totalHits);
    }
    expect(ix.search('kumquat').totalHits).toBe(made.reduce((n, _, i) => n + Math.floor(i / 2) + 1 + 1, 0));
  });

  it('a listed session older than the newest ones is counted in full too (its first hit was all the scan looked for)', async () => {
    // 14 sessions, newest first; only the four oldest match, each several times.
    const t0 = Date.now() - 100_000;
    for (let i = 0; i < 14; i++) {
      const s = new Session();
      for (let k = 0; k < 5; k++) s.prompt(i >= 10 ? `quince ${i} ${k}` : `plain ${i} ${k}`);
      await s.write();
      const t = new Date(t0 - i * 1000);
      await utimes(s.path, t, t);
    }
    const ix = await open();
    await ix.refresh(sources);
    for (const limit of [1, 2, 3]) {
      const full = ix.search('quince', { limit });
      const listed = ix.search('quince', { limit, countPastLimit: false });
      expect(full.sessions.map((x) => x.count)).toEqual(Array(limit).fill(5));
      expect(listed.sessions).toEqual(full.sessions);
      expect(listed.moreSessions).toBe(4 - limit);
      expect(listed.totalHits).toBe(5 * limit);
    }
  });

  it('reads only appended bytes, counts live and abandoned prompts, and survives a reopen', async () => {
    const s = new Session();
    const p1 = s.prompt('first zebra');
    s.prompt('second zebra');
    await s.write();
    let ix = await open();
    let rep = await ix.refresh(sources);
    expect(rep.scanned).toBe(1);
    const before = s.text().length;
    // A native rewind: a new prompt under the first prompt's reply, abandoning the second.
    s.parent = JSON.parse(s.lines[2]!).uuid as string;
    s.prompt('third zebra after rewind');
    await appendFile(s.path, s.text().slice(before));
    ix = await open();
    rep = await ix.refresh(sources);
    expect(rep, JSON.stringify(rep)).toMatchObject({ appended: 1 });
    expect(rep.bytesRead).toBe(s.text().length - before);
    expect(ix.search('zebra').sessions[0]!.count).toBe(3);
    const sum = ix.summary(s.path)!;
    expect(sum.promptCount).toBe(3);
    expect(sum.livePromptCount).toBe(2);
    expect(sum.firstPrompt).toContain('first zebra');
    expect(ix.search('zebra').sessions[0]!.prompts.map((p) => p.promptUuid)).toContain(p1);
  });

  it('re-indexes a file that shrank or was rewritten, and drops deleted files', async () => {
    const s = new Session();
    s.prompt('alpha words');
    s.prompt('beta words');
    await s.write();
    const ix = await open();
    await ix.refresh(sources);
    await truncate(s.path, s.text().indexOf('\n') + 1 + s.lines[1]!.length + 1 + s.lines[2]!.length + 1);
    let rep = await ix.refresh(sources);
    expect(rep.reindexed).toBe(1);
    expect(ix.search('beta').totalHits).toBe(0);
    expect(ix.search('alpha').totalHits).toBe(1);
    // Same size, other bytes: a rewrite.
    const t = await readFile(s.path, 'utf8');
    await writeFile(s.path, t.replace('alpha', 'gamma'));
    rep = await ix.refresh(sources);
    expect(rep.reindexed).toBe(1);
    expect(ix.search('gamma').totalHits).toBe(1);
    await unlink(s.path);
    rep = await ix.refresh(sources);
    expect(rep.deleted).toBe(1);
    expect(ix.search('gamma').totalHits).toBe(0);
    expect((await open()).search('gamma').totalHits).toBe(0);
  });

  it('rebuilds a corrupt, truncated or foreign index with one notice', async () => {
    const s = new Session();
    s.prompt('kiwi fruit');
    await s.write();
    await (await open()).refresh(sources);
    const [seg] = (await readdir(cache)).filter((n) => n.endsWith('.idx'));
    const buf = await readFile(join(cache, seg!));
    const flip = (at: number) => Buffer.concat([buf.subarray(0, at), Buffer.from([buf[at]! ^ 0x20]), buf.subarray(at + 1)]);
    const folded = buf.indexOf('kiwi fruit\0');
    // Refused at open: cut, foreign, a damaged header or folded text (what every search reads).
    for (const bad of [buf.subarray(0, buf.length - 10), Buffer.from('SQLite format 3\0'), flip(buf.indexOf('"files"')), flip(folded)]) {
      await writeFile(join(cache, seg!), bad);
      const ix = await open();
      expect(ix.notices).toHaveLength(1);
      expect(ix.fileCount).toBe(0);
      await ix.refresh(sources);
      expect(ix.search('kiwi').totalHits).toBe(1);
    }
    // A damaged original text or summary is met when a result reads it: dropped, rebuilt, searched again.
    await rm(cache, { recursive: true });
    await (await open()).refresh(sources);
    const [seg2] = (await readdir(cache)).filter((n) => n.endsWith('.idx'));
    const buf2 = await readFile(join(cache, seg2!));
    const text = buf2.indexOf('kiwi fruit', buf2.indexOf('kiwi fruit\0') + 11);
    await writeFile(join(cache, seg2!), Buffer.concat([buf2.subarray(0, text), Buffer.from('K'), buf2.subarray(text + 1)]));
    const ix = await open();
    expect(ix.notices).toEqual([]);
    await ix.refresh(sources);
    const r = await ix.recovering(() => ix.search('kiwi'));
    expect(ix.notices).toEqual([expect.stringMatching(/fails its checksum; rebuilding it$/)]);
    expect(r.sessions[0]!.prompts[0]!.snippet).toBe('kiwi fruit');
    expect((await readdir(cache)).filter((n) => n.endsWith('.idx'))).toHaveLength(1);
  });

  it('compacts many segments into one and keeps every hit', async () => {
    const s = new Session();
    s.prompt('mango 0');
    await s.write();
    const ix = await open();
    await ix.refresh(sources);
    for (let i = 1; i <= 20; i++) {
      const before = s.text().length;
      s.prompt(`mango ${i}`);
      await appendFile(s.path, s.text().slice(before));
      await ix.refresh(sources);
    }
    expect((await readdir(cache)).filter((n) => n.endsWith('.idx')).length).toBeLessThanOrEqual(13);
    expect(ix.search('mango').totalHits).toBe(21);
    expect((await open()).search('mango').totalHits).toBe(21);
    expect((await open()).summary(s.path)!.livePromptCount).toBe(21);
  });

  it('writes one change at a time when the watcher sees several files change at once (one base left after compactions)', async () => {
    const sessions = [new Session(), new Session(), new Session(), new Session()];
    for (const [k, x] of sessions.entries()) {
      x.prompt(`kiwi s${k} 0`);
      await x.write();
    }
    const ix = await open();
    await ix.refresh(sources);
    for (let i = 1; i <= 12; i++) {
      for (const [k, x] of sessions.entries()) {
        const before = x.text().length;
        x.prompt(`kiwi s${k} ${i}`);
        await appendFile(x.path, x.text().slice(before));
      }
      // All at once, as the watcher reports the sessions agents write to; a compaction (slow on a big
      // index) may still be running when the next changes come: here, two of them among the writes.
      await Promise.all([ix.compact(), ...sessions.map((x) => ix.refreshFile(ADAPTERS.claude, root, x.path)), ix.compact()]);
    }
    const names = (await readdir(cache)).filter((n) => n.endsWith('.idx'));
    expect(names.filter((n) => n.endsWith('-base.idx'))).toHaveLength(1);
    expect(names.length).toBeLessThanOrEqual(13);
    expect(ix.search('kiwi').totalHits).toBe(52);
    const again = await open();
    expect(again.search('kiwi').totalHits).toBe(52);
    expect(again.summaries()).toEqual(ix.summaries());
  });

  it('merges the small segments after a big base without rewriting the base, and keeps every record', async () => {
    // A base much bigger than what follows: 30 sessions of 40 prompts.
    const many = Array.from({ length: 30 }, () => new Session());
    for (const [k, x] of many.entries()) {
      for (let i = 0; i < 40; i++) x.prompt(`plum s${k} p${i} ${'filler '.repeat(40)}`);
      await x.write();
    }
    const ix = await open();
    await ix.refresh(sources);
    await ix.compact();
    const baseName = (await readdir(cache)).find((n) => n.endsWith('-base.idx'))!;
    // 30 writes: appends to two sessions, a new one, and one deleted.
    const fresh = new Session();
    let crashed: string | null = null;
    for (let i = 1; i <= 30; i++) {
      const x = many[i % 2]!;
      const before = x.text().length;
      x.prompt(`plum again ${i}`);
      await appendFile(x.path, x.text().slice(before));
      if (i === 10) {
        fresh.prompt('plum fresh');
        await fresh.write();
      }
      if (i === 20) await unlink(many[5]!.path);
      const segsBefore = new Map<string, Buffer>();
      for (const n of await readdir(cache)) if (n.endsWith('.idx')) segsBefore.set(n, await readFile(join(cache, n)));
      await ix.refresh(sources);
      const after = (await readdir(cache)).filter((n) => n.endsWith('.idx'));
      // The first merge, as if cut short before it removed the old segments: the ones there before it are back.
      if (!crashed && after.some((n) => n.endsWith('-merged.idx'))) {
        crashed = join(dir, 'crashed');
        await mkdir(crashed);
        for (const n of after) await writeFile(join(crashed, n), await readFile(join(cache, n)));
        for (const [n, b] of segsBefore) if (!after.includes(n)) await writeFile(join(crashed, n), b);
        const scratchNow = await SearchIndex.open(join(dir, `scratch-${i}`));
        await scratchNow.refresh(sources);
        const reopened = await SearchIndex.open(crashed);
        expect(reopened.search('plum', { limit: 100 })).toEqual(scratchNow.search('plum', { limit: 100 }));
        expect(reopened.summaries()).toEqual(scratchNow.summaries());
      }
    }
    expect(crashed).not.toBeNull();
    const names = (await readdir(cache)).filter((n) => n.endsWith('.idx'));
    expect(names).toContain(baseName);
    expect(names.some((n) => n.endsWith('-merged.idx'))).toBe(true);
    expect(names.length).toBeLessThanOrEqual(13);
    // The same as an index built from scratch, in memory and opened again from disk.
    const scratch = await SearchIndex.open(join(dir, 'scratch'));
    await scratch.refresh(sources);
    for (const q of ['plum', '"plum again"', 'fresh', 's5']) {
      expect(ix.search(q, { limit: 100 })).toEqual(scratch.search(q, { limit: 100 }));
      expect((await open()).search(q, { limit: 100 })).toEqual(scratch.search(q, { limit: 100 }));
    }
    expect(ix.summaries()).toEqual(scratch.summaries());
    expect((await open()).summaries()).toEqual(scratch.summaries());
    // An append after the merge continues from the merged record.
    const x = many[0]!;
    const before = x.text().length;
    x.prompt('plum after merge');
    await appendFile(x.path, x.text().slice(before));
    expect(await (await open()).refresh(sources)).toMatchObject({ appended: 1, scanned: 0, reindexed: 0 });
  });

  it('finds what a brute-force scan of every prompt finds, on generated sessions', async () => {
    const words = ['apple', 'Äpfel', 'naïve', 'straße', 'κόσμος', 'мир', 'ピザ', 'zeta'];
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const all: { path: string; text: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const s = new Session();
      for (let j = 0; j < 1 + Math.floor(rand() * 8); j++) {
        const text = Array.from({ length: 6 }, () => words[Math.floor(rand() * words.length)]).join(' ');
        s.prompt(text);
        all.push({ path: s.path, text });
      }
      await s.write();
    }
    const ix = await open();
    await ix.refresh(sources);
    for (const q of ['apple', 'APFEL', 'naive', 'STRASSE', 'straße', 'ΚΟΣΜΟΣ', 'МИР', 'ピザ', '"zeta apple"']) {
      const terms = parseQuery(q).terms;
      const expected = all.filter((p) => terms.every((t) => fold(p.text).includes(t))).length;
      expect(ix.search(q).totalHits, q).toBe(expected);
    }
  });
});
