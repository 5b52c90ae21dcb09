import { useMemo } from 'react';
import { threeWay, type Cell, type Mark } from '../code/three-way.js';
import { plural } from '../format.js';
import './three-way.css';

const MARK_WORDS: Record<Exclude<Mark, null>, (n: string) => string> = {
  n: (n) => `changed by ${n}`,
  later: (n) => `changed after ${n}`,
  both: (n) => `changed by ${n} and again after it`,
};
/** Not by colour alone: a sign in the gutter too (the legend says which). */
const SIGN: Record<Exclude<Mark, null>, string> = { n: '●', later: '▲', both: '◆' };

function Column({ cells, missing, who }: { cells: Cell[]; missing: boolean; who: string }) {
  if (missing) return <div className="tw-col tw-missing small muted">no file</div>;
  if (cells.length === 0) return <div className="tw-col tw-missing small muted">no lines here</div>;
  return (
    <div className="tw-col">
      {cells.map((c) => (
        <div key={c.no} className={`tw-line${c.mark ? ` tw-${c.mark}` : ''}`} title={c.mark ? MARK_WORDS[c.mark](who) : undefined}>
          <span className="tw-no" aria-hidden>
            {c.no}
          </span>
          <span className="tw-sign" aria-hidden>
            {c.mark ? SIGN[c.mark] : ''}
          </span>
          <span className="tw-text">{c.text || ' '}</span>
          {c.mark && <span className="sr-only"> ({MARK_WORDS[c.mark](who)})</span>}
        </div>
      ))}
    </div>
  );
}

function ContextCell({ c }: { c: Cell | null }) {
  if (!c) return <div className="tw-line tw-ctx tw-none" />;
  return (
    <div className="tw-line tw-ctx">
      <span className="tw-no" aria-hidden>
        {c.no}
      </span>
      <span className="tw-sign" aria-hidden />
      <span className="tw-text">{c.text || ' '}</span>
    </div>
  );
}

/**
 * A revert conflict, three ways: the file before prompt #n (what the revert would put back), as #n
 * left it, and now; only the regions that cannot be merged, with two lines of the file around each.
 * Columns side by side where the sheet has the room, one above the other where it has not.
 */
export function ThreeWayView({ path, before, after, now, n, prompt }: { path: string; before: string | null; after: string | null; now: string | null; n: string; prompt: string }) {
  const tw = useMemo(() => threeWay(before, after, now), [before, after, now]);
  const heads = [`Before ${n}`, `As ${n} left it`, 'Now'];
  return (
    <div className="three-way" role="group" aria-label={`${path}: before ${n}, as ${n} left it, and now`}>
      <p className="tw-legend small">
        <span className="tw-key tw-n">{SIGN.n} changed by {n}</span> <span className="tw-key tw-later">{SIGN.later} changed after {n}</span>{' '}
        <span className="muted">
          · {plural(tw.byPrompt, 'line')} of {n}, {plural(tw.later, 'line')} changed since
        </span>
      </p>
      <div className="tw-grid">
        <div className="tw-heads" aria-hidden>
          {heads.map((h, i) => (
            <div key={h} className="tw-head small" title={i === 0 ? `Before ${n} “${prompt}”: what the revert would put back` : undefined}>
              {h}
            </div>
          ))}
        </div>
        {tw.blocks.map((b, i) =>
          b.kind === 'fold' ? (
            <div key={i} className="tw-fold small muted">
              ⋯ {plural(b.lines, 'line')} that revert cleanly or did not change
            </div>
          ) : b.kind === 'context' ? (
            <div key={i} className="tw-context">
              {b.rows.map((row, k) => (
                <div key={k} className="tw-row">
                  <ContextCell c={row.before} />
                  <ContextCell c={row.after} />
                  <ContextCell c={row.now} />
                </div>
              ))}
            </div>
          ) : (
            <div key={i} className="tw-conflict">
              {(
                [
                  [b.before, before === null],
                  [b.after, after === null],
                  [b.now, now === null],
                ] as const
              ).map(([cells, missing], k) => (
                <section key={k} className="tw-side" aria-label={heads[k]}>
                  <div className="tw-side-head small">{heads[k]}</div>
                  <Column cells={cells} missing={missing} who={n} />
                </section>
              ))}
            </div>
          ),
        )}
      </div>
    </div>
  );
}
