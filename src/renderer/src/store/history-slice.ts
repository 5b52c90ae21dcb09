import type { StateCreator } from 'zustand';
import type { HistoryEntryDoc, RevertPlan } from '../../../shared/contract.js';
import { getApi } from '../api/client.js';
import type { PreviewError } from './action-slice.js';
import type { Store } from './store.js';

export type Take = 'current' | 'before' | 'markers';

/** "Revert this prompt's changes": its preview, the choice made per conflicted file, and the apply. */
export interface RevertState {
  session: string;
  promptUuid: string;
  loading: boolean;
  applying: boolean;
  plan: RevertPlan | null;
  take: Record<string, Take>;
  error: PreviewError | null;
}

/** The project's operations list, as the History panel shows it. */
export interface HistoryState {
  project: string;
  loading: boolean;
  entries: HistoryEntryDoc[];
  /** The entry being undone (or redone) right now. */
  busy: string | null;
  error: PreviewError | null;
  /** What the last undo or redo from the panel did. */
  done: string | null;
}

export interface HistorySlice {
  revert: RevertState | null;
  history: HistoryState | null;
  openRevert: (promptUuid?: string) => Promise<void>;
  /** A choice for one conflicted file: the preview is made again with it. */
  chooseTake: (path: string, take: Take) => Promise<void>;
  confirmRevert: (force?: boolean) => Promise<void>;
  closeRevert: () => void;
  openHistory: () => Promise<void>;
  closeHistory: () => void;
  /** Undo one entry of the list (an undo entry's undo is its redo). */
  undoEntry: (id: string, force?: boolean, answered?: () => void) => Promise<void>;
  /** Put back the newest undone action. `answered`: called once the service answered, before the window reloads. */
  redo: (force?: boolean, answered?: () => void) => Promise<void>;
}

export const createHistorySlice: StateCreator<Store, [], [], HistorySlice> = (set, get) => {
  const loadRevert = async (take: Record<string, Take>) => {
    const r = get().revert;
    if (!r) return;
    set({ revert: { ...r, loading: true, take, error: null } });
    const res = await getApi().revertPreview({ session: r.session, promptUuid: r.promptUuid, take });
    const now = get().revert;
    if (!now || now.promptUuid !== r.promptUuid) return;
    set({ revert: { ...now, loading: false, plan: res.ok ? res.value : now.plan, error: res.ok ? null : res.error } });
  };
  const reloadHistory = async () => {
    const h = get().history;
    if (!h) return;
    const r = await getApi().history({ project: h.project });
    const now = get().history;
    if (!now) return;
    set({ history: { ...now, loading: false, entries: r.ok ? r.value.entries : now.entries, error: r.ok ? now.error : r.error } });
  };
  const afterChange = async () => {
    await get().loadSessions();
    const s = get().selectedSession;
    if (s) await get().loadTimeline(s);
  };
  return {
    revert: null,
    history: null,
    openRevert: async (uuid) => {
      const promptUuid = uuid ?? get().selectedPrompt;
      const session = get().selectedSession;
      if (!promptUuid || !session) return;
      set({ revert: { session, promptUuid, loading: true, applying: false, plan: null, take: {}, error: null } });
      await loadRevert({});
    },
    chooseTake: async (path, take) => {
      const r = get().revert;
      if (!r) return;
      await loadRevert({ ...r.take, [path]: take });
    },
    confirmRevert: async (force = false) => {
      const r = get().revert;
      if (!r || r.loading || r.applying) return;
      set({ revert: { ...r, applying: true, error: null } });
      const res = await getApi().revert({ session: r.session, promptUuid: r.promptUuid, take: r.take, force });
      if (!res.ok) return set({ revert: { ...get().revert!, applying: false, error: res.error } });
      const v = res.value;
      set({
        revert: null,
        result: { title: v.summary, forkSessionId: null, resumeCommand: null, handedBack: [], projectRoot: v.projectRoot, undoable: v.journalId !== null, undone: null, error: null, sourceSession: r.session, promptUuid: r.promptUuid },
      });
      await afterChange();
      if (get().history) await reloadHistory();
    },
    closeRevert: () => set({ revert: null }),
    openHistory: async () => {
      const project = get().timeline?.session.cwd;
      if (!project) return;
      set({ history: { project, loading: true, entries: [], busy: null, error: null, done: null } });
      await reloadHistory();
    },
    closeHistory: () => set({ history: null }),
    undoEntry: async (id, force = false, answered) => {
      const h = get().history;
      if (!h || h.busy) return;
      set({ history: { ...h, busy: id, error: null, done: null } });
      const r = await getApi().undo({ project: h.project, id, force });
      answered?.();
      set({ history: { ...get().history!, busy: null, error: r.ok ? null : r.error, done: r.ok ? r.value.summary : null } });
      if (r.ok) await afterChange();
      await reloadHistory();
    },
    redo: async (force = false, answered) => {
      const h = get().history;
      const project = h?.project ?? get().result?.projectRoot ?? get().timeline?.session.cwd;
      if (!project) return;
      if (h) set({ history: { ...h, busy: 'redo', error: null, done: null } });
      const r = await getApi().redo({ project, force });
      answered?.();
      if (get().history) set({ history: { ...get().history!, busy: null, error: r.ok ? null : r.error, done: r.ok ? r.value.summary : null } });
      const res = get().result ?? { title: 'Redo', forkSessionId: null, resumeCommand: null, handedBack: [], projectRoot: project, undoable: false, undone: null, error: null, sourceSession: get().selectedSession ?? '', promptUuid: get().selectedPrompt ?? '' };
      if (!get().history) set({ result: r.ok ? { ...res, title: r.value.summary, undone: null, undoable: true, error: null } : { ...res, error: r.error } });
      if (r.ok) await afterChange();
      if (get().history) await reloadHistory();
    },
  };
};
