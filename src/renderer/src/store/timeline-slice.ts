import type { StateCreator } from 'zustand';
import type { ResponseOf, RewindEvent } from '../../../shared/contract.js';
import type { Timeline } from '../../../shared/session-schema.js';
import { getApi } from '../api/client.js';
import { DEFAULT_LAYOUT, isSelectable, layoutRows, type Layout, type LayoutOptions } from '../rows.js';
import { takePendingPrompt } from './sessions-slice.js';
import type { Store } from './store.js';

export type TurnDetail = ResponseOf<'getTurn'>;
export type HooksInfo = ResponseOf<'hooksStatus'>;

export interface TimelineSlice {
  timeline: Timeline | null;
  layout: Layout | null;
  timelineError: string | null;
  selectedPrompt: string | null;
  turns: Record<string, TurnDetail | 'loading' | { error: string }>;
  hooks: HooksInfo | null;
  /** What the user expanded, collapsed or unfolded in this session's graph. */
  layoutOpts: LayoutOptions;
  /** Where "jump to branch point" came from, for "back". */
  jumpedFrom: string | null;
  loadTimeline: (session: string) => Promise<void>;
  /** Selects a row (a prompt, a collapsed branch or a fold); a hidden prompt is revealed first. */
  selectPrompt: (uuid: string | null) => void;
  moveSelection: (delta: number) => void;
  selectEdge: (edge: 'first' | 'last') => void;
  /** Selects live prompt #n; false when there is none. */
  goToNumber: (n: number) => boolean;
  toggleBranch: (branch: string) => void;
  openFold: (fold: string) => void;
  jumpToBranchPoint: () => void;
  jumpBack: () => void;
  loadTurn: (uuid: string) => Promise<void>;
  applyEvent: (e: RewindEvent) => void;
  loadHooks: () => Promise<void>;
  /** Installs Rewind's hooks for one agent (none: the session's own, as before); the error, or null. */
  installHooks: (agent?: string) => Promise<string | null>;
}

const setTimeline = (t: Timeline, opts: LayoutOptions) => ({ timeline: t, layout: layoutRows(t, opts), timelineError: null });
const FRESH_LAYOUT = (): LayoutOptions => ({ ...DEFAULT_LAYOUT, expanded: new Set(), collapsed: new Set(), openFolds: new Set() });
const isPromptKey = (k: string) => !k.startsWith('branch:') && !k.startsWith('fold:');

export const createTimelineSlice: StateCreator<Store, [], [], TimelineSlice> = (set, get) => {
  const relayout = (opts: LayoutOptions) => {
    const t = get().timeline;
    set({ layoutOpts: opts, layout: t ? layoutRows(t, opts) : null });
  };
  /** A prompt inside a collapsed branch or a fold: expand or unfold it so it has a row. */
  const reveal = (uuid: string) => {
    const l = get().layout;
    if (!l || l.indexOf.has(uuid)) return;
    const id = l.branchOf.get(uuid);
    const b = id ? l.branches.get(id) : undefined;
    if (!b) return;
    const o = get().layoutOpts;
    relayout({
      ...o,
      expanded: new Set([...o.expanded, b.id]),
      collapsed: new Set([...o.collapsed].filter((x) => x !== b.id)),
      openFolds: b.fold ? new Set([...o.openFolds, b.fold]) : o.openFolds,
    });
  };
  return {
  timeline: null,
  layout: null,
  timelineError: null,
  selectedPrompt: null,
  turns: {},
  hooks: null,
  layoutOpts: FRESH_LAYOUT(),
  jumpedFrom: null,
  loadTimeline: async (session) => {
    const r = await getApi().getTimeline({ session });
    // Measured by the UI benchmark: from data arriving to the rows on screen.
    performance.mark('rewind:timeline-data');
    if (get().selectedSession !== session) return;
    if (!r.ok) return set({ timeline: null, layout: null, timelineError: r.error.message });
    const opts = FRESH_LAYOUT();
    set({ ...setTimeline(r.value, opts), layoutOpts: opts, jumpedFrom: null });
    const last = [...r.value.prompts].reverse().find((p) => p.active) ?? r.value.prompts[r.value.prompts.length - 1];
    const pending = takePendingPrompt();
    if (pending && r.value.prompts.some((p) => p.uuid === pending)) get().selectPrompt(pending);
    else if (!get().selectedPrompt && last) get().selectPrompt(last.uuid);
    void get().loadHooks();
  },
  selectPrompt: (uuid) => {
    if (uuid && isPromptKey(uuid)) reveal(uuid);
    set({ selectedPrompt: uuid });
    if (uuid && isPromptKey(uuid)) void get().loadTurn(uuid);
  },
  moveSelection: (delta) => {
    const rows = get().layout?.rows;
    if (!rows?.length) return;
    const at = get().layout!.indexOf.get(get().selectedPrompt ?? '') ?? (delta > 0 ? -1 : rows.length);
    for (let i = at + delta; i >= 0 && i < rows.length; i += Math.sign(delta)) {
      if (isSelectable(rows[i]!)) return get().selectPrompt(rows[i]!.key);
    }
  },
  selectEdge: (edge) => {
    const rows = get().layout?.rows ?? [];
    const pick = edge === 'first' ? rows.find(isSelectable) : [...rows].reverse().find(isSelectable);
    if (pick) get().selectPrompt(pick.key);
  },
  goToNumber: (n) => {
    const p = get().timeline?.prompts.find((x) => x.number === n);
    if (p) get().selectPrompt(p.uuid);
    return !!p;
  },
  toggleBranch: (branch) => {
    const o = get().layoutOpts;
    const b = get().layout?.branches.get(branch);
    if (!b) return;
    const expanded = new Set(o.expanded);
    const collapsed = new Set(o.collapsed);
    if (b.collapsed) {
      expanded.add(branch);
      collapsed.delete(branch);
    } else {
      collapsed.add(branch);
      expanded.delete(branch);
    }
    relayout({ ...o, expanded, collapsed });
    const sel = get().selectedPrompt;
    // Keep the selection on something drawn: the branch's row or its first prompt.
    if (sel && !get().layout!.indexOf.has(sel)) set({ selectedPrompt: b.collapsed ? b.prompts[0]! : `branch:${branch}` });
  },
  openFold: (fold) => {
    const o = get().layoutOpts;
    relayout({ ...o, openFolds: new Set([...o.openFolds, fold]) });
    if (get().selectedPrompt === `fold:${fold}`) set({ selectedPrompt: get().layout!.branches.get(fold)?.collapsed ? `branch:${fold}` : fold });
  },
  jumpToBranchPoint: () => {
    const l = get().layout;
    const sel = get().selectedPrompt;
    if (!l || !sel) return;
    const id = sel.startsWith('branch:') ? sel.slice(7) : l.branchOf.get(sel);
    const b = id ? l.branches.get(id) : undefined;
    if (!b?.branchPoint) return;
    get().selectPrompt(b.branchPoint);
    set({ jumpedFrom: sel });
  },
  jumpBack: () => {
    const from = get().jumpedFrom;
    if (!from) return;
    set({ jumpedFrom: null });
    get().selectPrompt(from);
  },
  loadTurn: async (uuid) => {
    const session = get().selectedSession;
    if (!session || get().turns[uuid]) return;
    set({ turns: { ...get().turns, [uuid]: 'loading' } });
    const r = await getApi().getTurn({ session, promptUuid: uuid });
    set({ turns: { ...get().turns, [uuid]: r.ok ? r.value : { error: r.error.message } } });
  },
  applyEvent: (e) => {
    if (e.type !== 'timelineChanged' || e.session !== get().selectedSession) return;
    if (e.kind === 'reread' && e.timeline) {
      set({ ...setTimeline(e.timeline, get().layoutOpts), turns: {} });
      return;
    }
    const t = get().timeline;
    if (!t) return;
    const byUuid = new Map(e.upserts.map((p) => [p.uuid, p]));
    const prompts = t.prompts.map((p) => byUuid.get(p.uuid) ?? p);
    for (const p of e.upserts) if (!t.prompts.some((q) => q.uuid === p.uuid)) prompts.push(p);
    const turns = { ...get().turns };
    for (const p of e.upserts) delete turns[p.uuid];
    set({ ...setTimeline({ ...t, prompts, stats: e.stats }, get().layoutOpts), turns });
  },
  loadHooks: async () => {
    const cwd = get().timeline?.session.cwd;
    if (!cwd) return set({ hooks: null });
    const r = await getApi().hooksStatus({ project: cwd });
    set({ hooks: r.ok ? r.value : null });
  },
  installHooks: async (agent) => {
    const cwd = get().timeline?.session.cwd;
    if (!cwd) return 'no project folder';
    const r = await getApi().installHooks(agent ? { project: cwd, agent } : { project: cwd, scope: 'local' });
    await get().loadHooks();
    return r.ok ? null : r.error.message;
  },
};
};
