import type { Cost, CostReport, Timeline, TimelinePrompt } from '../session-schema.js';
import { priceOf, type PriceBook } from './prices.js';

type Turn = TimelinePrompt['turn'];

interface Acc {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  usd: number;
  priced: number;
  unpriced: number;
}
const zero = (): Acc => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0, priced: 0, unpriced: 0 });

function add(a: Acc, b: Acc): Acc {
  return { input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, usd: a.usd + b.usd, priced: a.priced + b.priced, unpriced: a.unpriced + b.unpriced };
}

/** One turn: its input counts cache reads and writes too; each part is billed at its own price. */
function turnAcc(t: Pick<Turn, 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'model'>, book: PriceBook): Acc {
  const cacheRead = t.cacheReadTokens ?? 0;
  const cacheWrite = t.cacheWriteTokens ?? 0;
  const plain = Math.max(0, t.inputTokens - cacheRead - cacheWrite);
  const acc: Acc = { input: plain, output: t.outputTokens, cacheRead, cacheWrite, usd: 0, priced: 0, unpriced: 0 };
  if (plain + t.outputTokens + cacheRead + cacheWrite === 0) return acc;
  const p = priceOf(t.model ?? null, book);
  if (!p) return { ...acc, unpriced: 1 };
  acc.usd = (plain * p.input + t.outputTokens * p.output + cacheRead * p.cacheRead + cacheWrite * p.cacheWrite) / 1e6;
  acc.priced = 1;
  return acc;
}

function toCost(a: Acc): Cost {
  return {
    tokens: { input: a.input, output: a.output, cacheRead: a.cacheRead, cacheWrite: a.cacheWrite },
    usd: a.priced ? Math.round(a.usd * 1e6) / 1e6 : null,
    partial: a.priced > 0 && a.unpriced > 0,
  };
}

/**
 * Pure: what each turn, prompt subtree, branch and the whole session cost, from the tokens each
 * turn recorded and the model that answered it.
 */
export function costReport(t: Timeline, book: PriceBook): CostReport {
  const own = new Map<string, Acc>();
  const children = new Map<string, string[]>();
  const unpriced = new Set<string>();
  for (const p of t.prompts) {
    const a = turnAcc(p.turn, book);
    if (a.unpriced && p.turn.model) unpriced.add(p.turn.model);
    own.set(p.uuid, a);
    if (p.parentPrompt) children.set(p.parentPrompt, [...(children.get(p.parentPrompt) ?? []), p.uuid]);
  }
  // Subtrees bottom-up: children come after their parent in file order, so walk it backwards.
  const subtree = new Map<string, Acc>();
  for (let i = t.prompts.length - 1; i >= 0; i--) {
    const u = t.prompts[i]!.uuid;
    subtree.set(u, (children.get(u) ?? []).reduce((s, c) => add(s, subtree.get(c) ?? zero()), own.get(u)!));
  }
  const sum = (ps: TimelinePrompt[]) => ps.reduce((s, p) => add(s, own.get(p.uuid)!), zero());
  // Turns no prompt holds: a command's before the first prompt (`/init`).
  const commandAcc = (active: boolean) =>
    t.commands.reduce((s, c) => {
      if (!c.tokens || (active && !c.active)) return s;
      const a = turnAcc({ inputTokens: c.tokens.input, outputTokens: c.tokens.output, cacheReadTokens: c.tokens.cacheRead, cacheWriteTokens: c.tokens.cacheWrite, model: c.tokens.model }, book);
      if (a.unpriced && c.tokens.model) unpriced.add(c.tokens.model);
      return add(s, a);
    }, zero());
  let session = add(sum(t.prompts), commandAcc(false));
  let live = add(sum(t.prompts.filter((p) => p.active)), commandAcc(true));
  // An agent that keeps the session's total (Droid's settings file) and not each turn's: that total.
  const kept = t.session.tokens;
  if (kept && kept.input + kept.output > session.input + session.output + session.cacheRead + session.cacheWrite) {
    const a = turnAcc({ inputTokens: kept.input, outputTokens: kept.output, cacheReadTokens: 0, cacheWriteTokens: 0, model: t.session.model ?? null }, book);
    if (a.unpriced && t.session.model) unpriced.add(t.session.model);
    session = a;
    if (!t.prompts.some((p) => !p.active)) live = a;
  }
  const lanes = new Map<number, TimelinePrompt[]>();
  for (const p of t.prompts) if (!p.active) lanes.set(p.lane, [...(lanes.get(p.lane) ?? []), p]);
  const prompts: CostReport['prompts'] = {};
  for (const p of t.prompts) prompts[p.uuid] = { turn: toCost(own.get(p.uuid)!), subtree: toCost(subtree.get(p.uuid)!) };
  return {
    currency: 'USD',
    pricesAsOf: book.asOf,
    pricesSource: book.source,
    session: toCost(session),
    live: toCost(live),
    deadBranches: [...lanes].sort(([a], [b]) => a - b).map(([lane, ps]) => ({ root: ps[0]!.uuid, lane, prompts: ps.length, cost: toCost(sum(ps)) })),
    prompts,
    unpricedModels: [...unpriced].sort(),
  };
}

export function withCost(t: Timeline, book: PriceBook): Timeline {
  return { ...t, cost: costReport(t, book) };
}

/** "$1.80", "<$0.01", or the tokens when nothing is priced: one wording for CLI and window. */
export function formatCost(c: Cost): string {
  if (c.usd === null) return `${formatTokens(c.tokens.input + c.tokens.cacheRead + c.tokens.cacheWrite + c.tokens.output)} tokens`;
  const usd = c.usd > 0 && c.usd < 0.01 ? '<$0.01' : `$${c.usd.toFixed(2)}`;
  return c.partial ? `${usd}+` : usd;
}

export function formatTokens(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}
