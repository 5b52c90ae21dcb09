import { useMemo } from 'react';
import { highlightLines } from '../code/highlight.js';
import { useLanguage } from '../code/use-language.js';
import { capHunks, parseFilePatch, splitRows, type DiffLine, type Hunk, type ParsedPatch } from '../code/patch.js';
import { plural } from '../format.js';
import '../code-view.css';

export type DiffLayout = 'unified' | 'split';

/**
 * Each line's HTML. The two sides of a hunk are highlighted apart (current: context and removed
 * lines; restored: context and added lines), each as one text, so multi-line constructs keep their colour.
 */
function useLineHtml(hunks: Hunk[], lang: string | null): Map<DiffLine, string> {
  return useMemo(() => {
    const html = new Map<DiffLine, string>();
    for (const h of hunks) {
      for (const side of ['del', 'add'] as const) {
        const lines = h.lines.filter((l) => l.kind === side || l.kind === 'ctx');
        const out = highlightLines(
          lines.map((l) => l.text),
          lang,
        );
        lines.forEach((l, i) => html.set(l, out[i]!));
      }
    }
    return html;
  }, [hunks, lang]);
}

/** Past this, a diff is cut: drawing 100,000 rows would freeze the window. */
const MAX_DRAWN_LINES = 5000;

const SIGN = { add: '+', del: '−', ctx: ' ', note: ' ' } as const;

function Code({ line, html }: { line: DiffLine; html: string | undefined }) {
  if (line.kind === 'note') return <span className="code note">{line.text}</span>;
  return <span className="code" dangerouslySetInnerHTML={{ __html: html || ' ' }} />;
}

function UnifiedLine({ line, html, numbers }: { line: DiffLine; html: string | undefined; numbers: boolean }) {
  return (
    <div className={`diff-line ${line.kind}`}>
      {numbers && (
        <>
          <span className="ln" aria-hidden>
            {line.oldNo ?? ''}
          </span>
          <span className="ln" aria-hidden>
            {line.newNo ?? ''}
          </span>
        </>
      )}
      <span className="sign" aria-hidden>
        {SIGN[line.kind]}
      </span>
      <Code line={line} html={html} />
    </div>
  );
}

function Half({ line, side, html }: { line: DiffLine | null; side: 'old' | 'new'; html: string | undefined }) {
  if (!line) return <div className="diff-half empty" />;
  return (
    <div className={`diff-half ${line.kind}`}>
      <span className="ln" aria-hidden>
        {side === 'old' ? line.oldNo : line.newNo}
      </span>
      <span className="sign" aria-hidden>
        {SIGN[line.kind]}
      </span>
      <Code line={line} html={html} />
    </div>
  );
}

/**
 * A file's hunks, stacked, current → restored: unified (one column) or side by side (current on
 * the left, restored on the right), syntax highlighted by file type once its language is loaded.
 */
export function DiffView({ path, parsed: given, patch, layout = 'unified', numbers = true }: { path: string; parsed?: ParsedPatch; patch?: string; layout?: DiffLayout; numbers?: boolean }) {
  const parsed = useMemo(() => given ?? parseFilePatch(patch ?? ''), [given, patch]);
  const { hunks, hidden } = useMemo(() => capHunks(parsed.hunks, MAX_DRAWN_LINES), [parsed]);
  const lang = useLanguage(path);
  const html = useLineHtml(hunks, lang);
  return (
    <div className={`diff mono ${layout}${numbers ? '' : ' no-numbers'}`} aria-label={`Changes to ${path}`} data-highlighted={lang ? 'true' : 'false'}>
      {hunks.map((h, i) => (
        <div key={i} className="hunk">
          {numbers && <div className="diff-line hunk-head">{h.header}</div>}
          {layout === 'unified'
            ? h.lines.map((l, j) => <UnifiedLine key={j} line={l} html={html.get(l)} numbers={numbers} />)
            : splitRows(h.lines).map((r, j) => (
                <div key={j} className="diff-row">
                  <Half line={r.left} side="old" html={r.left ? html.get(r.left) : undefined} />
                  <Half line={r.right} side="new" html={r.right ? html.get(r.right) : undefined} />
                </div>
              ))}
        </div>
      ))}
      {hidden > 0 && <div className="diff-line hunk-head">… {plural(hidden, 'more line')} not drawn here</div>}
    </div>
  );
}
