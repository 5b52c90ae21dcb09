import type { StateCreator } from 'zustand';
import type { ResponseOf, RewindEvent } from '../../../shared/contract.js';
import type { Timeline } from '../../../shared/session-schema.js';
import { getApi } from '../api/client.js';
import { layoutRows, type Layout } from '../rows.js';
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
  loadTimeline: (session: string) => Promise<void>;
  selectPrompt: (uuid: string | null) => void;
  moveSelection: (delta: number) => void;
  loadTurn: (uuid: string) => Promise<void>;
  applyEvent: (e: RewindEvent) => void;
  loadHooks: () => Promise<void>;
  installHooks: () => Promise<string | null>;
}

const setTimeline = (t: Timeline) => ({ timeline: t, layout: layoutRows(t), timelineError: null });

export const createTimelineSlice: StateCreator<Store, [], [], TimelineSlice> = (set, get) => ({
  timeline: null,
  layout: null,
  timelineError: null,
  selectedPrompt: null,
  turns: {},
  hooks: null,
  loadTimeline: async (session) => {
    const r = await getApi().getTimeline({ session });
    // Measured by the UI benchmark: from data arriving to the rows on screen.
    performance.mark('rewind:timeline-data');
    if (get().selectedSession !== session) return;
    if (!r.ok) return set({ timeline: null, layout: null, timelineError: r.error.message });
    set(setTimeline(r.value));
    const last = [...r.value.prompts].reverse().find((p) => p.active) ?? r.value.prompts[r.value.prompts.length - 1];
    if (!get().selectedPrompt && last) get().selectPrompt(last.uuid);
    void get().loadHooks();
  },
  selectPrompt: (uuid) => {
    set({ selectedPrompt: uuid });
    if (uuid) void get().loadTurn(uuid);
  },
  moveSelection: (delta) => {
    const t = get().timeline;
    if (!t || t.prompts.length === 0) return;
    // Prompts in the order they are drawn (file order).
    const order = get().layout!.rows.filter((r) => r.kind === 'prompt').map((r) => r.key);
    const i = order.indexOf(get().selectedPrompt ?? '');
    const next = order[Math.min(order.length - 1, Math.max(0, (i === -1 ? order.length : i) + delta))];
    if (next) get().selectPrompt(next);
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
      set({ ...setTimeline(e.timeline), turns: {} });
      return;
    }
    const t = get().timeline;
    if (!t) return;
    const byUuid = new Map(e.upserts.map((p) => [p.uuid, p]));
    const prompts = t.prompts.map((p) => byUuid.get(p.uuid) ?? p);
    for (const p of e.upserts) if (!t.prompts.some((q) => q.uuid === p.uuid)) prompts.push(p);
    const turns = { ...get().turns };
    for (const p of e.upserts) delete turns[p.uuid];
    set({ ...setTimeline({ ...t, prompts, stats: e.stats }), turns });
  },
  loadHooks: async () => {
    const cwd = get().timeline?.session.cwd;
    if (!cwd) return set({ hooks: null });
    const r = await getApi().hooksStatus({ project: cwd });
    set({ hooks: r.ok ? r.value : null });
  },
  installHooks: async () => {
    const cwd = get().timeline?.session.cwd;
    if (!cwd) return 'no project folder';
    const r = await getApi().installHooks({ project: cwd, scope: 'local' });
    await get().loadHooks();
    return r.ok ? null : r.error.message;
  },
});
