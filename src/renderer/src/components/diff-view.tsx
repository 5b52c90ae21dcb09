import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import { useMemo } from 'react';

hljs.registerLanguage('typescript', typescript);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('json', json);
hljs.registerLanguage('markdown', markdown);
hljs.registerLanguage('python', python);
hljs.registerLanguage('bash', bash);
hljs.registerLanguage('css', css);
hljs.registerLanguage('xml', xml);

const BY_EXT: Record<string, string> = { ts: 'typescript', tsx: 'typescript', mts: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript', json: 'json', md: 'markdown', py: 'python', sh: 'bash', css: 'css', html: 'xml', xml: 'xml', svg: 'xml' };

function highlight(line: string, lang: string | undefined): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (!lang) return esc(line);
  try {
    return hljs.highlight(line, { language: lang, ignoreIllegals: true }).value;
  } catch {
    return esc(line);
  }
}

/** A unified diff (current -> restored), syntax highlighted by file type. */
export function DiffView({ path, patch }: { path: string; patch: string }) {
  const lang = BY_EXT[path.split('.').pop()?.toLowerCase() ?? ''];
  // Drop the file header (Index/===/---/+++): the file is named above; start at the first hunk.
  const lines = useMemo(() => {
    const all = patch.split('\n');
    const first = all.findIndex((l) => l.startsWith('@@'));
    return (first === -1 ? [] : all.slice(first)).filter((l, i, a) => !(i === a.length - 1 && l === ''));
  }, [patch]);
  return (
    <pre className="diff mono" aria-label={`Changes to ${path}`}>
      {lines.map((l, i) => {
        const kind = l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('\\') ? 'note' : 'ctx';
        const body = kind === 'hunk' || kind === 'note' ? l : l.slice(1);
        return (
          <div key={i} className={`diff-line ${kind}`}>
            <span className="sign" aria-hidden>
              {kind === 'add' ? '+' : kind === 'del' ? '−' : ' '}
            </span>
            {kind === 'hunk' || kind === 'note' ? <span>{body}</span> : <span dangerouslySetInnerHTML={{ __html: highlight(body, lang) || ' ' }} />}
          </div>
        );
      })}
    </pre>
  );
}
