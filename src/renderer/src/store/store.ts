import { create } from 'zustand';
import { createActionSlice, type ActionSlice } from './action-slice.js';
import { createInsightSlice, type InsightSlice } from './insight-slice.js';
import { createSessionsSlice, type SessionsSlice } from './sessions-slice.js';
import { createTimelineSlice, type TimelineSlice } from './timeline-slice.js';

export type Store = SessionsSlice & TimelineSlice & ActionSlice & InsightSlice;

/** One store made of slices; components select the smallest piece they need. */
export const useStore = create<Store>()((...a) => ({
  ...createSessionsSlice(...a),
  ...createTimelineSlice(...a),
  ...createActionSlice(...a),
  ...createInsightSlice(...a),
}));
