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

let exportJobs = 0;

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
  compareWith: async (b) => {
    const from = get().compareFrom;
    const session = get().selectedSession;
    if (!from || !session || (from.uuid === b && from.session === session)) return;
    const a = from.uuid;
    set({ compareFrom: null, comparison: { a, b, loading: true, result: null, error: null } });
    let r = await getApi().comparePrompts({ a: { session: from.session, promptUuid: a }, b: { session, promptUuid: b } });
    // The second pick comes first on the line (an ancestor of the first): asked the other way round,
    // so the prompts and the code read from the earlier to the later.
    if (r.ok && r.value.ancestor && r.value.b.prompts.length === 0 && r.value.a.prompts.length > 0) {
      const swapped = await getApi().comparePrompts({ a: { session, promptUuid: b }, b: { session: from.session, promptUuid: a } });
      if (swapped.ok) r = swapped;
    }
    if (get().comparison?.b !== b) return;
    set({ comparison: { a, b, loading: false, result: r.ok ? r.value : null, error: r.ok ? null : r.error.message } });
  },
  closeComparison: () => set({ comparison: null }),
  exportSession: async (format, branch) => {
    const session = get().selectedSession;
    if (!session) return;
    const id = ++exportJobs;
    const job = { id, job: `w${Date.now().toString(36)}-${id}`, started: Date.now(), what: branch ? 'the branch as Markdown' : 'the session as HTML', progress: null };
    // Another export still on its way is stopped: one at a time.
    if (get().exporting) void getApi().cancelExport({ job: get().exporting!.job });
    set({ exportMessage: null, exporting: job });
    // The service's own count of turns read (operationProgress under export-<job>).
    const off = getApi().onEvent((e) => {
      const now = get().exporting;
      if (e.type === 'operationProgress' && e.id === `export-${job.job}` && now?.id === id) set({ exporting: { ...now, progress: { message: e.message, fraction: e.fraction } } });
    });
    const r = await getApi().exportSession({ session, format, branch, redact: true, job: job.job }).finally(off);
    // Cancelled (or another export started): this answer is not saved.
    if (get().exporting?.id !== job.id) return;
    set({ exporting: null });
    if (!r.ok) {
      set({ exportMessage: `Export failed: ${r.error.message}` });
      return;
    }
    const url = URL.createObjectURL(new Blob([r.value.content], { type: `${r.value.mime};charset=utf-8` }));
    const a = document.createElement('a');
    a.href = url;
    a.download = r.value.filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    const n = Object.values(r.value.redacted).reduce((x, y) => x + y, 0);
    set({ exportMessage: `Saved ${r.value.filename} (${r.value.prompts} prompts; ${n === 0 ? 'no secrets found' : `${n} secret${n === 1 ? '' : 's'} redacted`})` });
  },
});
