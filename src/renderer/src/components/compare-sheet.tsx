import { useEffect, useRef } from 'react';
import type { CompareResult } from '../../../shared/contract.js';
import { formatCost } from '../../../shared/insight/cost.js';
import { plural, treeSourceText } from '../../../shared/wording.js';
import { firstLine } from '../format.js';
import '../insight.css';
import { useStore } from '../store/store.js';
import { useBackdropClose } from './backdrop.js';
import { DiffView } from './diff-view.js';

// Its own chunk (app.tsx loads it on first use): the compare sheet and its diffs.

function SideColumn({ tag, side }: { tag: string; side: CompareResult['a'] }) {
  return (
    <section className="compare-side" aria-label={`Side ${tag}`}>
      <h3>
        {tag}: {plural(side.prompts.length, 'prompt')} <span className="muted small">· {formatCost(side.cost)}</span>
      </h3>
      {side.prompts.length === 0 ? (
        <p className="muted small">Nothing after the common ancestor.</p>
      ) : (
        <ol className="compare-prompts">
          {side.prompts.map((p) => (
            <li key={p.uuid} className={p.active ? 'live' : 'dead'}>
              <span className="n">{p.number ? `#${p.number}` : '○'}</span> {firstLine(p.text, 90)}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Two prompts side by side from their common ancestor, then the code each side ended with. */
export function CompareSheet() {
  const c = useStore((s) => s.comparison);
  const close = useStore((s) => s.closeComparison);
  const backdrop = useBackdropClose(close);
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (c) closeButton.current?.focus();
  }, [c]);
  useEffect(() => {
    if (!c) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [c, close]);
  if (!c) return null;
  const r = c.result;
  const code = r?.code;
  return (
    <div className="sheet-backdrop" {...backdrop}>
      <div className="sheet compare-sheet" role="dialog" aria-modal="true" aria-labelledby="compare-title" onClick={(e) => e.stopPropagation()}>
        <header className="sheet-header">
          <h2 id="compare-title">Compare two branches</h2>
          {r && <p className="muted small">{r.ancestor ? `From their common ancestor #${r.ancestor.number ?? '?'} “${firstLine(r.ancestor.text, 60)}”` : 'They share no prompt.'}</p>}
        </header>
        <div className="sheet-body">
          {c.loading && <p className="muted" aria-busy="true">Comparing…</p>}
          {c.error && (
            <p className="error-text" role="alert">
              {c.error}
            </p>
          )}
          {r && (
            <>
              <div className="compare-columns">
                <SideColumn tag="A" side={r.a} />
                <SideColumn tag="B" side={r.b} />
              </div>
              <section aria-label="Code" className="compare-code">
                <h3>Code</h3>
                {code && 'unavailable' in code && <p className="muted">{code.unavailable}</p>}
                {code && !('unavailable' in code) && (
                  <>
                    <p className="small muted">
                      A: {treeSourceText(code.a)} · B: {treeSourceText(code.b)}
                    </p>
                    {code.a.kind !== 'unknown' && code.b.kind !== 'unknown' && code.files.length === 0 && <p>The two sides ended with the same files.</p>}
                    {code.files.length > 0 && (
                      <>
                        <p>
                          {plural(code.files.length, 'file')} differ <span className="add">+{code.added}</span> <span className="del">−{code.removed}</span> (A → B)
                        </p>
                        <ul className="compare-files">
                          {code.files.map((f) => (
                            <li key={f.path}>
                              <span className={`fbadge ${f.status === 'A' ? 'create' : f.status === 'D' ? 'delete' : 'modify'}`}>{f.status}</span> <span className="mono">{f.path}</span>{' '}
                              {f.binary ? <span className="muted small">binary</span> : <span className="small"><span className="add">+{f.added}</span> <span className="del">−{f.removed}</span></span>}
                            </li>
                          ))}
                        </ul>
                        {code.files.map((f) => f.patch && (
                          <div key={f.path} className="compare-diff">
                            <h4 className="mono small">{f.path}</h4>
                            <DiffView path={f.path} patch={f.patch} />
                          </div>
                        ))}
                      </>
                    )}
                  </>
                )}
              </section>
            </>
          )}
        </div>
        <footer className="sheet-footer">
          <button type="button" className="button" ref={closeButton} onClick={close}>
            Close
          </button>
        </footer>
      </div>
    </div>
  );
}
