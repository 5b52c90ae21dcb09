import type { StateCreator } from 'zustand';
import type { CompareResult } from '../../../shared/contract.js';
import { costReport } from '../../../shared/insight/cost.js';
import { DEFAULT_PRICE_BOOK, type PriceBook } from '../../../shared/insight/prices.js';
import type { CostReport, Timeline } from '../../../shared/session-schema.js';
import { getApi } from '../api/client.js';
import type { Store } from './store.js';

export interface Comparison {
  a: string;
  b: string;
  loading: boolean;
  result: CompareResult | null;
  error: string | null;
}

export interface InsightSlice {
  prices: PriceBook | null;
  /** A prompt picked with "Compare with…": the next prompt selected, in this or another session
   * (a fork and its original), is compared with it. */
  compareFrom: { session: string; uuid: string; label: string } | null;
  comparison: Comparison | null;
  exportMessage: string | null;
  /** An export on its way: when it started (the window shows the time it has taken), what it is, and how far the service got. */
  exporting: { id: number; job: string; started: number; what: string; progress: { message: string; fraction: number | null } | null } | null;
  /** Stops the export in the service (it stops reading turns and answers CANCELLED): nothing is saved. */
  cancelExport: () => void;
  loadPrices: () => Promise<void>;
  startCompare: (uuid: string, label: string) => void;
  cancelCompare: () => void;
  compareWith: (uuid: string) => Promise<void>;
  closeComparison: () => void;
  exportSession: (format: 'md' | 'html', branch?: string) => Promise<void>;
}

// Costs are derived from the timeline in view: computed once per timeline object, never stored.
const reports = new WeakMap<Timeline, { book: PriceBook; report: CostReport }>();
export function costOf(t: Timeline, book: PriceBook | null): CostReport {
  const b = book ?? DEFAULT_PRICE_BOOK;
  const hit = reports.get(t);
  if (hit && hit.book === b) return hit.report;
  const report = costReport(t, b);
  reports.set(t, { book: b, report });
  return report;
}

export const createInsightSlice: StateCreator<Store, [], [], InsightSlice> = (set, get) => ({
  prices: null,
  compareFrom: null,
  comparison: null,
  exportMessage: null,
  exporting: null,
  cancelExport: () => {
    const job = get().exporting;
    if (!job) return;
    set({ exporting: null, exportMessage: 'Export cancelled: nothing was saved.' });
    void getApi().cancelExport({ job: job.job });
  },
  loadPrices: async () => {
    if (get().prices) return;
    const r = await getApi().getPrices({});
    set({ prices: r.ok ? { overrides: r.value.overrides, asOf: r.value.asOf, source: r.value.source } : DEFAULT_PRICE_BOOK });
  },
  startCompare: (uuid, label) => {
    const session = get().selectedSession;
    if (session) set({ compareFrom: { session, uuid, label }, comparison: null });
  },
  cancelCompare: () => set({ compareFrom: null }),
  // Compare and export run from their own chunk (store/insight-run.ts): not on the first screen.
  compareWith: async (b) => (await import('./insight-run.js')).compareWith(get, set, b),
  closeComparison: () => set({ comparison: null }),
  exportSession: async (format, branch) => (await import('./insight-run.js')).exportSession(get, set, format, branch),
});
