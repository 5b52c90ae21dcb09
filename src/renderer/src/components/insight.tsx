import { useEffect } from 'react';
import { formatCost, formatTokens } from '../../../shared/insight/cost.js';
import type { Cost } from '../../../shared/session-schema.js';
import { plural } from '../../../shared/wording.js';
import '../insight.css';
import { costOf } from '../store/insight-slice.js';
import { useStore } from '../store/store.js';

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
