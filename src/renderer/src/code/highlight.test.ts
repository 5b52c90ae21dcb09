import { describe, expect, it } from 'vitest';
import { highlightLines, languageOf, loadLanguage, splitHighlighted } from './highlight.js';

describe('highlighting', () => {
  it('picks the language by extension or well-known name', () => {
    expect([languageOf('src/a.tsx'), languageOf('x/Dockerfile'), languageOf('notes.txt'), languageOf('.env')]).toEqual(['typescript', 'dockerfile', null, null]);
  });

  it('cuts highlighted HTML into lines, closing and reopening spans that cross a line end', () => {
    expect(splitHighlighted('a<span class="c">/* x\ny */</span>b\nz')).toEqual(['a<span class="c">/* x</span>', '<span class="c">y */</span>b', 'z']);
  });

  it('highlights a block as one text (a comment over lines keeps its colour), plain until loaded', async () => {
    const lines = ['const a = 1; /* one', 'two */ let b = "<x>";'];
    expect(highlightLines(lines, 'typescript')).toEqual(['const a = 1; /* one', 'two */ let b = "&lt;x&gt;";']);
    expect(await loadLanguage('typescript')).toBe(true);
    const html = highlightLines(lines, 'typescript');
    expect(html).toHaveLength(2);
    expect(html[0]).toContain('<span class="hljs-keyword">const</span>');
    expect(html[1]).toMatch(/^<span class="hljs-comment">two \*\/<\/span>/);
    expect(html[1]).toContain('&lt;x&gt;');
    expect(await loadLanguage('nope')).toBe(false);
  });
});
