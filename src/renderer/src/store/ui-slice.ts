import type { StateCreator } from 'zustand';
import type { ResponseOf } from '../../../shared/contract.js';
import { getApi } from '../api/client.js';
import type { Store } from './store.js';

export type Prefs = ResponseOf<'getPrefs'>;

/** The window's own state: drawers in narrow layouts, and what the user asked us to remember. */
export interface UiSlice {
  /** Narrow layouts: the sessions drawer and the details drawer. */
  sidebarOpen: boolean;
  detailsOpen: boolean;
  prefs: Prefs;
  setSidebarOpen: (open: boolean) => void;
  setDetailsOpen: (open: boolean) => void;
  loadPrefs: () => Promise<void>;
  /** Resolves to an error message, or null. */
  renameSession: (sessionId: string, name: string | null) => Promise<string | null>;
  dismissHooksNotice: (project: string) => Promise<void>;
  /** The "Set up checkpoints" sheet (its own chunk). */
  hooksSheetOpen: boolean;
  setHooksSheetOpen: (open: boolean) => void;
}

export const createUiSlice: StateCreator<Store, [], [], UiSlice> = (set) => ({
  sidebarOpen: false,
  detailsOpen: false,
  prefs: { names: {}, hiddenHooksNotice: [] },
  hooksSheetOpen: false,
  setHooksSheetOpen: (hooksSheetOpen) => set({ hooksSheetOpen }),
  setSidebarOpen: (sidebarOpen) => set({ sidebarOpen, detailsOpen: false }),
  setDetailsOpen: (detailsOpen) => set({ detailsOpen, sidebarOpen: false }),
  loadPrefs: async () => {
    const r = await getApi().getPrefs({});
    if (r.ok) set({ prefs: r.value });
  },
  renameSession: async (sessionId, name) => {
    const r = await getApi().renameSession({ sessionId, name });
    if (!r.ok) return r.error.message;
    set({ prefs: r.value });
    return null;
  },
  dismissHooksNotice: async (project) => {
    // Hidden at once; remembered by the service for the next start.
    set((s) => ({ prefs: { ...s.prefs, hiddenHooksNotice: [...s.prefs.hiddenHooksNotice, project] } }));
    const r = await getApi().dismissHooksNotice({ project });
    if (r.ok) set({ prefs: r.value });
  },
});
