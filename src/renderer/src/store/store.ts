import { create } from 'zustand';
import { createActionSlice, type ActionSlice } from './action-slice.js';
import { createPaletteSlice, type PaletteSlice } from './palette-slice.js';
import { createInsightSlice, type InsightSlice } from './insight-slice.js';
import { createHistorySlice, type HistorySlice } from './history-slice.js';
import { createRemotesSlice, type RemotesSlice } from './remotes-slice.js';
import { createSessionsSlice, type SessionsSlice } from './sessions-slice.js';
import { createTimelineSlice, type TimelineSlice } from './timeline-slice.js';
import { createUiSlice, type UiSlice } from './ui-slice.js';
import { createUndoSlice, type UndoSlice } from './undo-slice.js';

export type Store = SessionsSlice & TimelineSlice & ActionSlice & InsightSlice & UiSlice & PaletteSlice & HistorySlice & RemotesSlice & UndoSlice;

/** One store made of slices; components select the smallest piece they need. */
export const useStore = create<Store>()((...a) => ({
  ...createSessionsSlice(...a),
  ...createTimelineSlice(...a),
  ...createActionSlice(...a),
  ...createUiSlice(...a),
  ...createInsightSlice(...a),
  ...createPaletteSlice(...a),
  ...createHistorySlice(...a),
  ...createRemotesSlice(...a),
  ...createUndoSlice(...a),
}));
