// The README is a front page and the depth lives in docs/: every relative link and image in them must
// point to a file that exists, every `#anchor` into a markdown file must match one of its headings, and
// the README stays short enough to be read as a front page.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures.js';
import { tempDir } from './temp.js';

const README_MAX_LINES = 200;

/** Each line of a markdown text, blank inside fenced code blocks. */
function outsideFences(md: string): string[] {
  let fence: string | null = null;
  return md.split(/\r?\n/).map((line) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      const mark = f[1]!.charAt(0);
      if (fence === null) fence = mark;
      else if (mark === fence) fence = null;
      return '';
    }
    return fence === null ? line : '';
  });
}

/**
 * GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, `-`, `_` and
 * spaces kept), spaces become `-`, a repeated heading gets `-1`, `-2`. Written here rather than
 * taken from github-slugger: it is five lines, and the project adds no dependency for a test.
 */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of outsideFences(md)) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = h[1]!.replace(/`/g, '').toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every inline link and image target of a markdown text, with its line number. */
export function linksOf(md: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  outsideFences(md).forEach((raw, i) => {
    const text = raw.replace(/(`+)[^`]*?\1/g, ''); // a link shown as code is not a link
    for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1]! });
    for (const m of text.matchAll(/<img\s[^>]*src="([^"]+)"/g)) out.push({ line: i + 1, target: m[1]! });
  });
  return out;
}

/** What is wrong with the links of `files` (paths under `root`), one line each; empty when all resolve. */
export function brokenLinks(root: string, files: string[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const md = readFileSync(file, 'utf8');
    for (const { line, target } of linksOf(md)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: are not checked here
      const where = `${relative(root, file)}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
      const dest = path === '' ? file : resolve(dirname(file), path);
      if (!existsSync(dest)) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (anchor !== null && /\.md$/i.test(dest) && !anchorsOf(readFileSync(dest, 'utf8')).has(anchor)) problems.push(`${where}: no heading with that anchor`);
    }
  }
  return problems;
}

const docs = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => join(ROOT, 'docs', f));

describe('docs links', () => {
  it('every relative link and image in README.md and docs/*.md points to a file and heading that exist', () => {
    expect(docs.length).toBeGreaterThan(5);
    const files = [join(ROOT, 'README.md'), ...docs];
    expect(files.reduce((n, f) => n + linksOf(readFileSync(f, 'utf8')).length, 0)).toBeGreaterThan(30);
    expect(brokenLinks(ROOT, files)).toEqual([]);
  });

  it(`README.md is a front page of at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('every doc in docs/ can be reached from the README by following links', () => {
    const reached = new Set([join(ROOT, 'README.md')]);
    for (const queue = [...reached]; queue.length; ) {
      const file = queue.shift()!;
      for (const { target } of linksOf(readFileSync(file, 'utf8'))) {
        const dest = resolve(dirname(file), target.split('#')[0]!);
        if (!/\.md$/i.test(dest) || !existsSync(dest) || reached.has(dest)) continue;
        reached.add(dest);
        queue.push(dest);
      }
    }
    expect(docs.filter((d) => !reached.has(d)).map((d) => relative(ROOT, d))).toEqual([]);
  });

  it('finds a planted missing file, a missing image and a wrong anchor, and ignores links shown as code', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'docs'));
    await writeFile(join(root, 'docs', 'a.md'), '# A page\n\n## From the terminal: `--host NAME`\n\n## Twice\n\n## Twice\n');
    await writeFile(join(root, 'pic.png'), '');
    const md = [
      '# Front',
      '[ok](docs/a.md) [ok](docs/a.md#from-the-terminal---host-name) [ok](docs/a.md#twice-1) [ok](#front)',
      '![ok](pic.png) [web](https://example.com/x) `[code](nowhere.md)`',
      '```',
      '[fenced](nowhere.md)',
      '```',
      '[gone](docs/b.md) ![gone](shot.png) [bad](docs/a.md#twice-2) [bad](#back)',
    ].join('\n');
    await writeFile(join(root, 'README.md'), md);
    expect(brokenLinks(root, [join(root, 'README.md')])).toEqual([
      'README.md:7: docs/b.md: no such file',
      'README.md:7: shot.png: no such file',
      'README.md:7: docs/a.md#twice-2: no heading with that anchor',
      'README.md:7: #back: no heading with that anchor',
    ]);
  });
});
