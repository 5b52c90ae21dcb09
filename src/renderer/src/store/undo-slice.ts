import type { StateCreator } from 'zustand';
import { getApi } from '../api/client.js';
import type { PreviewError } from './action-slice.js';
import type { Store } from './store.js';

/**
 * Undo and Redo, whichever way they are started (the result bar's buttons, Ctrl/Cmd+Z,
 * Shift+Ctrl/Cmd+Z, the palette, History): one path, so each does what its button does. Undoing an
 * entry out of order (not the newest) asks first: the service says what would happen (a dry run),
 * and nothing changes until it is confirmed.
 */
export interface UndoAsk {
  kind: 'undo' | 'redo';
  project: string;
  /** A History entry undone out of order; null: the newest action. */
  id: string | null;
  /** What the entry is, in words (History's title), when it is known. */
  what: string | null;
  loading: boolean;
  /** The dry run's own sentence ("Would remove fork …"). */
  summary: string | null;
  error: PreviewError | null;
  applying: boolean;
}

export interface UndoSlice {
  undoAsk: UndoAsk | null;
  askUndo: (kind: 'undo' | 'redo', opts?: { id?: string; what?: string }) => Promise<void>;
  confirmUndo: (force?: boolean) => Promise<void>;
  closeUndoAsk: () => void;
}

/** The project an Undo or Redo is for: the last result's, else the open History's, else the open session's. */
export function undoProject(s: Pick<Store, 'result' | 'history' | 'timeline'>): string | null {
  return s.history?.project ?? s.result?.projectRoot ?? s.timeline?.session.cwd ?? null;
}

export const createUndoSlice: StateCreator<Store, [], [], UndoSlice> = (set, get) => ({
  undoAsk: null,
  askUndo: async (kind, opts = {}) => {
    const project = undoProject(get());
    if (!project || get().undoAsk?.applying) return;
    // The newest action (the result bar's Undo, Ctrl/Cmd+Z) goes back at once: Redo is its way back.
    // One from the middle of History skips what came after it: that one says what it would do first.
    if (!opts.id) {
      if (kind === 'redo') await get().redo();
      else await get().undo();
      return;
    }
    const ask: UndoAsk = { kind, project, id: opts.id ?? null, what: opts.what ?? null, loading: true, summary: null, error: null, applying: false };
    set({ undoAsk: ask });
    const api = getApi();
    const r = kind === 'redo' ? await api.redo({ project, dryRun: true }) : await api.undo({ project, dryRun: true, ...(ask.id ? { id: ask.id } : {}) });
    if (get().undoAsk !== ask) return;
    set({ undoAsk: { ...ask, loading: false, summary: r.ok ? r.value.summary : null, error: r.ok ? null : r.error } });
  },
  confirmUndo: async (force = false) => {
    const a = get().undoAsk;
    if (!a || a.loading || a.applying) return;
    set({ undoAsk: { ...a, applying: true, error: null } });
    if (a.id && get().history) await get().undoEntry(a.id, force);
    else if (a.kind === 'redo') await get().redo(force);
    else await get().undo(force);
    // The outcome (or its error) is shown where the action was started: the result bar or History.
    set({ undoAsk: null });
  },
  closeUndoAsk: () => set({ undoAsk: null }),
});
