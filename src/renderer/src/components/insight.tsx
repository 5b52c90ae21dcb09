import { useEffect, useRef } from 'react';
import { useBackdropClose } from './backdrop.js';
import type { CompareResult } from '../../../shared/contract.js';
import { formatCost, formatTokens } from '../../../shared/insight/cost.js';
import type { Cost } from '../../../shared/session-schema.js';
import { plural, treeSourceText } from '../../../shared/wording.js';
import { firstLine } from '../format.js';
import '../insight.css';
import { costOf } from '../store/insight-slice.js';
import { useStore } from '../store/store.js';
import { DiffView } from './diff-view.js';

function breakdown(c: Cost): string {
  const t = c.tokens;
  return [`input ${formatTokens(t.input)}`, `output ${formatTokens(t.output)}`, `cache read ${formatTokens(t.cacheRead)}`, `cache write ${formatTokens(t.cacheWrite)}`].join(' · ');
}

/** The session's cost in the timeline header: total, and what the abandoned branches cost. */
export function CostSummary() {
  const timeline = useStore((s) => s.timeline);
  const prices = useStore((s) => s.prices);
  const loadPrices = useStore((s) => s.loadPrices);
  useEffect(() => {
    void loadPrices();
  }, [loadPrices]);
  if (!timeline) return null;
  const r = costOf(timeline, prices);
  const dead = r.deadBranches.filter((b) => b.cost.usd !== null);
  const title = [
    `Session: ${formatCost(r.session)} (${breakdown(r.session)})`,
    `Live path: ${formatCost(r.live)}`,
    ...r.deadBranches.map((b) => `Abandoned branch (${plural(b.prompts, 'prompt')}): ${formatCost(b.cost)}`),
    r.unpricedModels.length ? `No price for ${r.unpricedModels.join(', ')}: tokens only` : '',
    `Prices as of ${r.pricesAsOf} (${r.pricesSource})`,
  ]
    .filter(Boolean)
    .join('\n');
  return (
    <span className="cost-summary" title={title} data-testid="session-cost">
      {formatCost(r.session)}
      {dead.length > 0 && <span className="muted"> · abandoned {formatCost({ ...r.session, usd: dead.reduce((s, b) => s + b.cost.usd!, 0), partial: false })}</span>}
    </span>
  );
}

/** A prompt's own turn cost, small, in its row; the hover tells its subtree too. */
export function RowCost({ uuid }: { uuid: string }) {
  const cost = useStore((s) => (s.timeline ? costOf(s.timeline, s.prices).prompts[uuid] : undefined));
  if (!cost || cost.turn.tokens.input + cost.turn.tokens.output === 0) return null;
  return (
    <span className="row-cost" title={`This turn: ${formatCost(cost.turn)} (${breakdown(cost.turn)})\nThis prompt and all that followed from it: ${formatCost(cost.subtree)}`}>
      {formatCost(cost.turn)}
    </span>
  );
}

/** Compare and export, for the selected prompt. */
export function InsightActions({ uuid }: { uuid: string }) {
  const startCompare = useStore((s) => s.startCompare);
  const label = useStore((s) => {
    const p = s.timeline?.prompts.find((x) => x.uuid === uuid);
    return p ? `${p.number ? `#${p.number}` : 'the abandoned prompt'} “${firstLine(p.text, 40)}”` : '';
  });
  const exportSession = useStore((s) => s.exportSession);
  const message = useStore((s) => s.exportMessage);
  return (
    <div className="insight-actions" role="group" aria-label="Compare and export">
      <button type="button" className="button" title="Pick another prompt to see both side by side, with their code" onClick={() => startCompare(uuid, label)}>
        Compare with…
      </button>
      <button type="button" className="button" title="This prompt's branch as Markdown (secrets redacted)" onClick={() => void exportSession('md', uuid)}>
        Export branch (.md)
      </button>
      <button type="button" className="button" title="The whole session as one HTML file (secrets redacted)" onClick={() => void exportSession('html')}>
        Export session (.html)
      </button>
      {message && (
        <p className="small muted" role="status">
          {message}
        </p>
      )}
    </div>
  );
}

/** While a first prompt is picked: pick the second (here, or in another session such as a fork). */
export function CompareBanner() {
  const from = useStore((s) => s.compareFrom);
  // Strings, not an object: a selector must return the same value while nothing changed.
  const targetUuid = useStore((s) => (s.selectedPrompt && !(s.selectedPrompt === s.compareFrom?.uuid && s.selectedSession === s.compareFrom?.session) ? s.selectedPrompt : null));
  const targetLabel = useStore((s) => {
    const p = s.timeline?.prompts.find((x) => x.uuid === targetUuid);
    return p ? `${p.number ? `#${p.number}` : 'the abandoned prompt'} “${firstLine(p.text, 30)}”` : null;
  });
  const target = targetUuid && targetLabel ? { uuid: targetUuid, label: targetLabel } : null;
  const compareWith = useStore((s) => s.compareWith);
  const cancel = useStore((s) => s.cancelCompare);
  if (!from) return null;
  return (
    <div className="compare-banner" role="status" aria-label="Compare">
      <span>
        Comparing from {from.label}. Select a prompt here or in another session (a fork, its original), then:
      </span>
      <button type="button" className="button small primary" disabled={!target} onClick={() => target && void compareWith(target.uuid)}>
        {target ? `Compare with ${target.label}` : 'Compare with…'}
      </button>
      <button type="button" className="button small" onClick={cancel}>
        Cancel
      </button>
    </div>
  );
}

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
