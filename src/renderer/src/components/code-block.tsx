import { useMemo, useState } from 'react';
import { highlightLines } from '../code/highlight.js';
import { useLanguage } from '../code/use-language.js';
import { plural } from '../format.js';

/** Lines shown before "Show all": the pane scrolls as one, so no block gets its own scroll box. */
const PREVIEW_LINES = 24;

/** A file's text, numbered and highlighted by its extension; long texts show their start first. */
export function CodeBlock({ path, text, label }: { path: string | null; text: string; label: string }) {
  const lang = useLanguage(path);
  const [all, setAll] = useState(false);
  const lines = useMemo(() => text.replace(/\n$/, '').split('\n'), [text]);
  const shown = all ? lines : lines.slice(0, PREVIEW_LINES);
  const html = useMemo(() => highlightLines(shown, lang), [shown, lang]);
  return (
    <div className="code-block mono" aria-label={label} data-highlighted={lang ? 'true' : 'false'}>
      {html.map((h, i) => (
        <div key={i} className="code-line">
          <span className="ln" aria-hidden>
            {i + 1}
          </span>
          <span className="code" dangerouslySetInnerHTML={{ __html: h || ' ' }} />
        </div>
      ))}
      {lines.length > PREVIEW_LINES && (
        <button type="button" className="link-button more" onClick={() => setAll(!all)}>
          {all ? 'Show less' : `Show all ${plural(lines.length, 'line')}`}
        </button>
      )}
    </div>
  );
}

/** Plain output (a command's, a tool's), its start first when long. */
export function Output({ text, label, className = '' }: { text: string; label: string; className?: string }) {
  const [all, setAll] = useState(false);
  const lines = text.replace(/\n$/, '').split('\n');
  const long = lines.length > PREVIEW_LINES;
  return (
    <div className={`output ${className}`} aria-label={label}>
      <pre className="mono">{long && !all ? lines.slice(0, PREVIEW_LINES).join('\n') : text}</pre>
      {long && (
        <button type="button" className="link-button more" onClick={() => setAll(!all)}>
          {all ? 'Show less' : `Show all ${plural(lines.length, 'line')}`}
        </button>
      )}
    </div>
  );
}
