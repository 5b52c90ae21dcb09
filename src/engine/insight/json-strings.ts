/** A JSON string literal of a text that holds escapes, where it is and what it says decoded. */
export interface EscapedString {
  start: number;
  end: number;
  decoded: string;
  /** False when the text ends inside it (a clipped body). */
  closed: boolean;
}

/**
 * The JSON string literals of `text` that hold one of the escapes `letters` names (`u` for
 * `\u002d`, `\\` for JSON inside JSON...), decoded. What does not decode as JSON is left out.
 */
export function escapedStrings(text: string, letters: string): EscapedString[] {
  const out: EscapedString[] = [];
  if (!text.includes('\\')) return out;
  // One pass, by hand: a literal runs from a quote (not an escaped one) to the next quote that is
  // not escaped, on one line, or is cut by the end of the text (a clipped body).
  let i = text.indexOf('"');
  while (i !== -1) {
    if (i > 0 && text.charCodeAt(i - 1) === 92) {
      i = text.indexOf('"', i + 1);
      continue;
    }
    let j = i + 1;
    let escapes = false;
    let end = -1;
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 34) {
        end = j + 1;
        break;
      }
      if (c === 10 || c === 13) break;
      if (c === 92) {
        if (letters.includes(text[j + 1] ?? '')) escapes = true;
        j++;
      }
    }
    const closed = end !== -1;
    const cut = !closed && j >= text.length;
    if (escapes && (closed || cut)) {
      // A cut body may end inside an escape: that half escape goes.
      const body = closed ? text.slice(i + 1, end - 1) : text.slice(i + 1).replace(/\\$/, '');
      const decoded = decode(body);
      if (decoded !== null) out.push({ start: i, end: closed ? end : text.length, decoded, closed });
    }
    // Past a closed literal; past the line or text that ended an unclosed one (nothing in it opens a literal).
    i = closed ? text.indexOf('"', end) : j >= text.length ? -1 : text.indexOf('"', j);
  }
  return out;
}

/** A body as JSON decodes it, or null when it holds what JSON does not (`\x41`, a cut `\u00`). */
function decode(body: string): string | null {
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return null;
  }
}

/** `text` with each string whose value changed encoded again in its place; every other byte as it was. */
export function replaceStrings(text: string, strings: EscapedString[], values: string[]): string {
  let out = '';
  let at = 0;
  strings.forEach((s, i) => {
    if (values[i] === s.decoded) return;
    const encoded = JSON.stringify(values[i]);
    out += text.slice(at, s.start) + (s.closed ? encoded : encoded.slice(0, -1));
    at = s.end;
  });
  return at === 0 ? text : out + text.slice(at);
}
