import { create } from 'zustand';
import { createActionSlice, type ActionSlice } from './action-slice.js';
import { createPaletteSlice, type PaletteSlice } from './palette-slice.js';
import { createInsightSlice, type InsightSlice } from './insight-slice.js';
<<<<<<< HEAD
import { createRemotesSlice, type RemotesSlice } from './remotes-slice.js';
=======
import { createHistorySlice, type HistorySlice } from './history-slice.js';
>>>>>>> history
import { createSessionsSlice, type SessionsSlice } from './sessions-slice.js';
import { createTimelineSlice, type TimelineSlice } from './timeline-slice.js';
import { createUiSlice, type UiSlice } from './ui-slice.js';

<<<<<<< HEAD
export type Store = SessionsSlice & TimelineSlice & ActionSlice & InsightSlice & UiSlice & PaletteSlice & RemotesSlice;
=======
export type Store = SessionsSlice & TimelineSlice & ActionSlice & InsightSlice & UiSlice & PaletteSlice & HistorySlice;
>>>>>>> history

/** One store made of slices; components select the smallest piece they need. */
export const useStore = create<Store>()((...a) => ({
  ...createSessionsSlice(...a),
  ...createTimelineSlice(...a),
  ...createActionSlice(...a),
  ...createUiSlice(...a),
  ...createInsightSlice(...a),
  ...createPaletteSlice(...a),
<<<<<<< HEAD
  ...createRemotesSlice(...a),
=======
  ...createHistorySlice(...a),
>>>>>>> history
}));
