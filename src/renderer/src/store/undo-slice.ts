import type { StateCreator } from 'zustand';
import { getApi } from '../api/client.js';
import type { PreviewError } from './action-slice.js';
import type { Store } from './store.js';

/**
 * Undo and Redo, whichever way they are started (the result bar's buttons, Ctrl/Cmd+Z,
 * Shift+Ctrl/Cmd+Z, the palette, History): one path. Asked from the keyboard, the palette or out of
 * order in History, it says first what would happen (the service's dry run), as History's Undo… does,
 * and nothing changes until it is confirmed; the result bar's and History's own buttons for the
 * newest action name it already and go at once (Redo is their way back).
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

/** The action an Undo (or Redo) of the newest would take back (or put back), in History's words. */
async function newestInWords(kind: 'undo' | 'redo', project: string, timeline: Store['timeline']): Promise<string | null> {
  const r = await getApi().history({ project });
  if (!r.ok) return null;
  const { actionWords, historyCards, promptLookup } = await import('../history-words.js');
  const cards = historyCards(r.value.entries);
  const card = kind === 'redo' ? cards.find((c) => c.redoable) : cards.find((c) => c.newest);
  if (!card) return null;
  // The action's prompt is named from its own session (a fork's original, when the fork is open), as History does.
  const t = card.entry.transcript;
  const other = t && t !== timeline?.session.transcriptPath ? await getApi().getTimeline({ session: t }) : null;
  return actionWords(card.entry, promptLookup(other?.ok ? other.value : timeline));
}

export const createUndoSlice: StateCreator<Store, [], [], UndoSlice> = (set, get) => ({
  undoAsk: null,
  askUndo: async (kind, opts = {}) => {
    const project = undoProject(get());
    if (!project || get().undoAsk?.applying) return;
    // Every Undo and Redo asked for here says what it would do first (the service's dry run): the
    // newest action (Ctrl/Cmd+Z, Shift+Ctrl/Cmd+Z, the palette) as one from the middle of History.
    const ask: UndoAsk = { kind, project, id: opts.id ?? null, what: opts.what ?? null, loading: true, summary: null, error: null, applying: false };
    set({ undoAsk: ask });
    const api = getApi();
    const [r, what] = await Promise.all([
      kind === 'redo' ? api.redo({ project, dryRun: true }) : api.undo({ project, dryRun: true, ...(ask.id ? { id: ask.id } : {}) }),
      ask.what ? Promise.resolve(ask.what) : newestInWords(kind, project, get().timeline),
    ]);
    if (get().undoAsk !== ask) return;
    set({ undoAsk: { ...ask, what, loading: false, summary: r.ok ? r.value.summary : null, error: r.ok ? null : r.error } });
  },
  confirmUndo: async (force = false) => {
    const a = get().undoAsk;
    if (!a || a.loading || a.applying) return;
    set({ undoAsk: { ...a, applying: true, error: null } });
    // Closed once the service answered: the outcome (or its error) is shown where the action was
    // started (the result bar or History), and the next Ctrl/Cmd+Z is taken while the window reloads.
    const close = () => {
      if (get().undoAsk?.kind === a.kind && get().undoAsk?.applying) set({ undoAsk: null });
    };
    if (a.id && get().history) await get().undoEntry(a.id, force, close);
    else if (a.kind === 'redo') await get().redo(force, close);
    else await get().undo(force, close);
    close();
  },
  closeUndoAsk: () => set({ undoAsk: null }),
});
