import type { StateCreator } from 'zustand';
import type { Timeline } from '../../../shared/session-schema.js';
import { getApi } from '../api/client.js';
import type { Store } from './store.js';

export interface TimelineSlice {
  timeline: Timeline | null;
  timelineError: string | null;
  selectedPrompt: string | null;
  loadTimeline: (session: string) => Promise<void>;
  selectPrompt: (uuid: string | null) => void;
}

export const createTimelineSlice: StateCreator<Store, [], [], TimelineSlice> = (set) => ({
  timeline: null,
  timelineError: null,
  selectedPrompt: null,
  loadTimeline: async (session) => {
    const api = getApi();
    if (!api) return;
    const r = await api.getTimeline({ session });
    if (!r.ok) return set({ timeline: null, timelineError: r.error.message });
    set({ timeline: r.value, timelineError: null, selectedPrompt: null });
  },
  selectPrompt: (uuid) => set({ selectedPrompt: uuid }),
});
