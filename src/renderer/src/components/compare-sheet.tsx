import { useEffect, useRef } from 'react';
import type { CompareResult } from '../../../shared/contract.js';
import { formatCost } from '../../../shared/insight/cost.js';
import { plural } from '../../../shared/wording.js';
import { firstLine } from '../format.js';
import '../insight.css';
import { useStore } from '../store/store.js';
import { useBackdropClose } from './backdrop.js';
import { DiffView } from './diff-view.js';
import { useNow } from './use-now.js';
import { When } from './when.js';

// Its own chunk (app.tsx loads it on first use): the compare sheet and its diffs.

type Brief = CompareResult['a']['picked'];
type Side = CompareResult['a'];
type Source = Extract<CompareResult['code'], { a: unknown }>['a'];

/** A prompt in words: `#5 “WRITE b.txt bee”`, or `the abandoned prompt “…”` (never an id). */
const named = (p: Brief, width = 40) => `${p.number ? `#${p.number}` : 'the abandoned prompt'} “${firstLine(p.text, width)}”`;
const short = (p: Brief) => (p.number ? `#${p.number}` : 'the abandoned prompt');

/**
 * How the two prompts are related, in one sentence: one before the other on the same line (an
 * ancestor and its descendant), two branches that part after a common prompt, or nothing shared.
 */
function relation(r: CompareResult): { text: string; line: 'a-first' | 'b-first' | 'branches' | 'apart' } {
  const { text, line } = relationWords(r);
  return { line, text: `${text[0]!.toUpperCase()}${text.slice(1)}` };
}

function relationWords(r: CompareResult): { text: string; line: 'a-first' | 'b-first' | 'branches' | 'apart' } {
  const [a, b] = [r.a, r.b];
  if (!r.ancestor) return { line: 'apart', text: `${named(a.picked)} and ${named(b.picked)} share no prompt: each side below runs from its session's start.` };
  if (a.prompts.length === 0 || b.prompts.length === 0) {
    const [first, then, line] = a.prompts.length === 0 ? [a, b, 'a-first' as const] : [b, a, 'b-first' as const];
    return { line, text: `${named(first.picked)} comes before ${named(then.picked)} on the same line: ${short(then.picked)} is ${plural(then.prompts.length, 'prompt')} further on.` };
  }
  return { line: 'branches', text: `${named(a.picked)} and ${named(b.picked)} are on two branches that part after ${named(r.ancestor)}: one went on for ${plural(a.prompts.length, 'prompt')}, the other for ${plural(b.prompts.length, 'prompt')}.` };
}

function Prompts({ side }: { side: Side }) {
  return (
    <ol className="compare-prompts">
      {side.prompts.map((p) => (
        <li key={p.uuid} className={p.active ? 'live' : 'dead'}>
          <span className="n">{p.number ? `#${p.number}` : '○'}</span> {firstLine(p.text, 90)}
          {p.uuid === side.picked.uuid && side.prompts.length > 1 && <span className="muted small"> · picked</span>}
        </li>
      ))}
    </ol>
  );
}

function SideColumn({ side, ancestor }: { side: Side; ancestor: Brief | null }) {
  return (
    <section className="compare-side" aria-label={`The branch of ${named(side.picked)}`}>
      <h3>{named(side.picked, 50)}</h3>
      <p className="small muted compare-side-sub">
        {ancestor ? `${plural(side.prompts.length, 'prompt')} after ${short(ancestor)}` : plural(side.prompts.length, 'prompt')} · {formatCost(side.cost)}
      </p>
      <Prompts side={side} />
    </section>
  );
}

/** Where a side's code comes from, in words (the checkpoint's id is the CLI's). */
function SourceWords({ s, now }: { s: Source; now: number }) {
  if (s.kind === 'checkpoint')
    return (
      <>
        Rewind's checkpoint taken <When iso={s.time} now={now} />
      </>
    );
  if (s.kind === 'disk') return <>the files on disk now</>;
  if (s.kind === 'agent-history') return <>the agent's own file history ({plural(s.files, 'tracked file')})</>;
  return <>not known: {s.reason}</>;
}

/** Two prompts compared: how they are related, the prompts between or after them, then the code each side ended with. */
export function CompareSheet() {
  const c = useStore((s) => s.comparison);
  const close = useStore((s) => s.closeComparison);
  const backdrop = useBackdropClose(close);
  const closeButton = useRef<HTMLButtonElement>(null);
  const now = useNow();
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
  const rel = r ? relation(r) : null;
  // On one line the code goes from the earlier prompt to the later; on two branches from A to B.
  const [from, to] = r && rel?.line === 'b-first' ? [r.b, r.a] : r ? [r.a, r.b] : [null, null];
  const later = rel?.line === 'a-first' ? r!.b : rel?.line === 'b-first' ? r!.a : null;
  return (
    <div className="sheet-backdrop" {...backdrop}>
      <div className="sheet compare-sheet" role="dialog" aria-modal="true" aria-labelledby="compare-title" onClick={(e) => e.stopPropagation()}>
        <header className="sheet-header">
          <h2 id="compare-title">Compare two prompts</h2>
        </header>
        {/* Scrolled with the keyboard too: nothing in it may take the focus. */}
        <div className="sheet-body" tabIndex={0} role="region" aria-label="The comparison">
          {c.loading && <p className="muted" aria-busy="true">Comparing…</p>}
          {c.error && (
            <p className="error-text" role="alert">
              {c.error}
            </p>
          )}
          {r && rel && (
            <>
              <p className="compare-relation" role="note" aria-label="How they are related">
                {rel.text}
              </p>
              {later ? (
                <section className="compare-line" aria-label={`What ${short(later.picked)} adds`}>
                  <h3>
                    After {short(from!.picked)}, up to {short(later.picked)}
                  </h3>
                  <p className="small muted compare-side-sub">
                    {plural(later.prompts.length, 'prompt')} · {formatCost(later.cost)}
                  </p>
                  <Prompts side={later} />
                </section>
              ) : (
                <div className="compare-columns">
                  <SideColumn side={r.a} ancestor={r.ancestor} />
                  <SideColumn side={r.b} ancestor={r.ancestor} />
                </div>
              )}
              <section aria-label="Code" className="compare-code">
                <h3>Code</h3>
                {code && 'unavailable' in code && <p className="muted">{code.unavailable}</p>}
                {code && !('unavailable' in code) && (
                  <>
                    <dl className="compare-sources small">
                      <dt>As {short(from!.picked)} left it</dt>
                      <dd>
                        <SourceWords s={from === r.a ? code.a : code.b} now={now} />
                      </dd>
                      <dt>As {short(to!.picked)} left it</dt>
                      <dd>
                        <SourceWords s={to === r.b ? code.b : code.a} now={now} />
                      </dd>
                    </dl>
                    {code.a.kind !== 'unknown' && code.b.kind !== 'unknown' && code.files.length === 0 && <p>Both ended with the same files.</p>}
                    {code.files.length > 0 && (
                      <>
                        <p>
                          {plural(code.files.length, 'file')} differ{code.files.length === 1 ? 's' : ''}, from {short(r.a.picked)} to {short(r.b.picked)}: <span className="add">+{code.added}</span> <span className="del">−{code.removed}</span>
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
