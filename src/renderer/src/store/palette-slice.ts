import type { StateCreator } from 'zustand';
import type { Store } from './store.js';

export interface PaletteSlice {
  /** The command palette's starting text while it is open; null when closed. */
  palette: string | null;
  openPalette: (query?: string) => void;
  closePalette: () => void;
}

export const createPaletteSlice: StateCreator<Store, [], [], PaletteSlice> = (set) => ({
  palette: null,
  openPalette: (query = '') => set({ palette: query }),
  closePalette: () => set({ palette: null }),
});
