import type { StateCreator } from 'zustand';
import type { ResponseOf } from '../../../shared/contract.js';
import { getApi } from '../api/client.js';
import type { Store } from './store.js';
import { plural } from '../../../shared/wording.js';

export type Action = 'fork' | 'rewrite' | 'restore' | 'fork-restore';

export interface Preview {
  action: Action;
  promptUuid: string;
  loading: boolean;
  error: string | null;
  rewind: ResponseOf<'previewRewind'> | null;
  restore: ResponseOf<'previewRestore'> | null;
  applying: boolean;
}

export interface ActionResult {
  title: string;
  forkSessionId: string | null;
  /** How to continue the fork in the agent's own CLI (from the service: the renderer names no agent). */
  resumeCommand?: string | null;
  revertedText: string;
  projectRoot: string | null;
  undoable: boolean;
  undone: string | null;
  error: string | null;
}

export interface ActionSlice {
  preview: Preview | null;
  result: ActionResult | null;
  openPreview: (action: Action, promptUuid?: string) => Promise<void>;
  closePreview: () => void;
  confirm: (force?: boolean) => Promise<void>;
  undo: () => Promise<void>;
  dismissResult: () => void;
}

export const ACTION_LABEL: Record<Action, string> = {
  fork: 'Fork here',
  rewrite: 'Rewrite here',
  restore: 'Restore code to here',
  'fork-restore': 'Fork + restore code',
};

export const createActionSlice: StateCreator<Store, [], [], ActionSlice> = (set, get) => ({
  preview: null,
  result: null,
  openPreview: async (action, uuid) => {
    const promptUuid = uuid ?? get().selectedPrompt;
    const session = get().selectedSession;
    const cwd = get().timeline?.session.cwd;
    // A read-only session (its agent or format): the detail pane says why instead.
    if (!promptUuid || !session || get().timeline?.session.readOnly) return;
    set({ preview: { action, promptUuid, loading: true, error: null, rewind: null, restore: null, applying: false } });
    const api = getApi();
    if (action === 'restore') {
      const r = cwd ? await api.previewRestore({ project: cwd, ref: promptUuid, session }) : null;
      if (get().preview?.promptUuid !== promptUuid) return;
      set({ preview: { ...get().preview!, loading: false, restore: r?.ok ? r.value : null, error: !r ? 'This session has no project folder on this machine.' : r.ok ? null : r.error.message } });
      return;
    }
    const r = await api.previewRewind({ session, promptUuid, mode: action === 'rewrite' ? 'in-place' : 'fork', withCode: action === 'fork-restore' });
    if (get().preview?.promptUuid !== promptUuid) return;
    set({ preview: { ...get().preview!, loading: false, rewind: r.ok ? r.value : null, error: r.ok ? null : r.error.message } });
  },
  closePreview: () => set({ preview: null }),
  confirm: async (force = false) => {
    const p = get().preview;
    const session = get().selectedSession;
    const cwd = get().timeline?.session.cwd ?? null;
    if (!p || !session || p.loading || p.applying) return;
    set({ preview: { ...p, applying: true, error: null } });
    const api = getApi();
    if (p.action === 'restore') {
      const r = await api.applyRestore({ project: cwd!, ref: p.promptUuid, session, force });
      if (!r.ok) return set({ preview: { ...get().preview!, applying: false, error: r.error.message } });
      set({ preview: null, result: { title: r.value.summary, forkSessionId: null, revertedText: '', projectRoot: cwd, undoable: true, undone: null, error: null } });
      return;
    }
    const r = await api.applyRewind({ session, promptUuid: p.promptUuid, mode: p.action === 'rewrite' ? 'in-place' : 'fork', withCode: p.action === 'fork-restore', force });
    if (!r.ok) return set({ preview: { ...get().preview!, applying: false, error: r.error.message } });
    const v = r.value;
    const files = v.code ? ` · ${plural(v.code.written + v.code.deleted, 'file')} restored` : '';
    set({
      preview: null,
      result: {
        title: v.forkSessionId ? `Fork created: ${v.forkSessionId}${files}` : `Chat rewritten in place${files}`,
        forkSessionId: v.forkSessionId,
        resumeCommand: v.forkSessionId ? v.resumeCommand : null,
        revertedText: v.chat.prompts.map((x) => x.text).join('\n\n'),
        projectRoot: v.projectRoot,
        undoable: !!v.projectRoot,
        undone: null,
        error: null,
      },
    });
    if (v.forkPath) {
      await get().loadSessions();
      get().selectSession(v.forkPath);
    } else await get().loadTimeline(session);
  },
  undo: async () => {
    const r = get().result;
    if (!r?.projectRoot) return;
    const u = await getApi().undo({ project: r.projectRoot });
    if (!u.ok) return set({ result: { ...r, error: u.error.message } });
    set({ result: { ...r, undone: u.value.summary, undoable: false, error: null } });
    await get().loadSessions();
    const s = get().selectedSession;
    if (s) {
      const stillThere = get().sessions.some((x) => x.transcriptPath === s);
      if (!stillThere && get().sessions[0]) get().selectSession(get().sessions[0]!.transcriptPath);
      else await get().loadTimeline(s);
    }
  },
  dismissResult: () => set({ result: null }),
});
