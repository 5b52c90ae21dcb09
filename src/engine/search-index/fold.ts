/**
 * Search folds text the same way at index time and at query time: compatibility decomposition,
 * combining marks dropped (é -> e, ﬁ -> fi, full-width Ａ -> a), lower case, final sigma as sigma,
 * every run of white space as one space. Any script keeps its letters: nothing is transliterated.
 */
const MARKS = /\p{M}+/gu;
const SPACES = /\s+/g;

const NON_ASCII = /[^ -~\t\n\r\f\v]/;
/** In ASCII text, the white space that `SPACES` would change: runs of two or more, and any single non-space. Single spaces are left alone (half the time of replacing every run on prompts). */
const ASCII_SPACES = /[\t\n\v\f\r ]{2,}|[\t\n\v\f\r]/g;

export function fold(s: string): string {
  // Most prompts are ASCII: nothing to decompose (same result, a fraction of the time).
  if (!NON_ASCII.test(s)) return s.toLowerCase().replace(ASCII_SPACES, ' ');
  return s.normalize('NFKD').replace(MARKS, '').toLowerCase().replace(/ς/g, 'σ').replace(SPACES, ' ');
}

/** A folded text and, for each of its UTF-16 units, where it came from in the original: `start(i)`..`end(i)` (end exclusive). */
export interface FoldMap {
  folded: string;
  start(i: number): number;
  end(i: number): number;
}

/**
 * `fold` with the way back to the original text. Used only on the prompts that matched, to place
 * highlights on the original text.
 */
export function foldWithMap(s: string): FoldMap {
  if (!NON_ASCII.test(s)) return foldAsciiWithMap(s);
  let folded = '';
  const start: number[] = [];
  const end: number[] = [];
  let i = 0;
  let lastSpace = false;
  while (i < s.length) {
    const cp = s.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    const ch = s.slice(i, i + w);
    let f: string;
    if (/\s/.test(ch)) {
      if (lastSpace) {
        end[end.length - 1] = i + w;
        i += w;
        continue;
      }
      f = ' ';
    } else f = ch.normalize('NFKD').replace(MARKS, '').toLowerCase().replace(/ς/g, 'σ');
    lastSpace = f === ' ';
    for (let k = 0; k < f.length; k++) {
      start.push(i);
      end.push(i + w);
    }
    folded += f;
    i += w;
  }
  return { folded, start: (k) => start[k]!, end: (k) => end[k]! };
}

/**
 * `foldWithMap` of ASCII text: lower case, and each run of white space as one space. Only those
 * runs move anything, so the map is kept as the runs (where each is, in both texts) instead of a
 * number per character: a per-character loop cost 7 ms for a search's 60 snippets.
 */
function foldAsciiWithMap(s: string): FoldMap {
  const folded = s.toLowerCase().replace(ASCII_SPACES, ' ');
  // Per run: its space's place in the folded text, its start and length in the original.
  const at: number[] = [];
  const from: number[] = [];
  const len: number[] = [];
  let shift = 0;
  for (const m of s.matchAll(ASCII_SPACES)) {
    at.push(m.index - shift);
    from.push(m.index);
    len.push(m[0].length);
    shift += m[0].length - 1;
  }
  // Runs before folded unit i: [k, the original's shift there].
  const before = (i: number): [number, number] => {
    let lo = 0;
    let hi = at.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (at[mid]! < i) lo = mid + 1;
      else hi = mid;
    }
    return [lo, lo === 0 ? 0 : from[lo - 1]! + len[lo - 1]! - (at[lo - 1]! + 1)];
  };
  const start = (i: number) => {
    const [k, sh] = before(i);
    return at[k] === i ? from[k]! : i + sh;
  };
  const end = (i: number) => {
    const [k, sh] = before(i);
    return at[k] === i ? from[k]! + len[k]! : i + sh + 1;
  };
  return { folded, start, end };
}

export interface ParsedQuery {
  /** Folded words and phrases; a prompt matches when it contains every one. */
  terms: string[];
}

/** `foo "bar baz"`: words and double-quoted phrases, folded; empty terms dropped. */
export function parseQuery(q: string): ParsedQuery {
  const terms: string[] = [];
  const re = /"([^"]*)"?|(\S+)/g;
  for (let m = re.exec(q); m; m = re.exec(q)) {
    const t = fold(m[1] ?? m[2] ?? '').trim();
    if (t) terms.push(t);
  }
  // Longest first: the rarest term finds the fewest candidates.
  return { terms: [...new Set(terms)].sort((a, b) => b.length - a.length) };
}

export interface Highlighted {
  snippet: string;
  /** [start, end) in `snippet`, UTF-16 units, sorted, not overlapping. */
  highlights: [number, number][];
}

/** A one-line window of `text` around its first match, with every match in it marked. */
export function highlight(text: string, terms: string[], width = 160): Highlighted {
  const { folded, start, end } = foldWithMap(text);
  const ranges: [number, number][] = [];
  for (const t of terms) {
    for (let at = folded.indexOf(t); at !== -1; at = folded.indexOf(t, at + Math.max(1, t.length))) {
      ranges.push([start(at), end(at + t.length - 1)]);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  const first = merged[0]?.[0] ?? 0;
  let from = Math.max(0, first - Math.floor(width / 4));
  // Never cut a surrogate pair.
  if (from > 0 && /[\uDC00-\uDFFF]/.test(text[from] ?? '')) from--;
  let to = Math.min(text.length, from + width);
  if (to < text.length && /[\uD800-\uDBFF]/.test(text[to - 1] ?? '')) to++;
  const lead = from > 0 ? '…' : '';
  const snippet = lead + text.slice(from, to).replace(/\s/g, ' ') + (to < text.length ? '…' : '');
  const highlights = merged
    .filter(([a, b]) => b > from && a < to)
    .map(([a, b]): [number, number] => [Math.max(a, from) - from + lead.length, Math.min(b, to) - from + lead.length]);
  return { snippet, highlights };
}
