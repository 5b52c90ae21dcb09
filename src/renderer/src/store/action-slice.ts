import type { StateCreator } from 'zustand';
import type { ResponseOf } from '../../../shared/contract.js';
import { eligibility, type Eligibility, type PromptFacts } from '../../../shared/eligibility.js';
import type { Timeline, TimelinePrompt } from '../../../shared/session-schema.js';
import { getApi } from '../api/client.js';
import type { Store } from './store.js';
import { focusTimeline } from '../focus.js';
import { plural } from '../../../shared/wording.js';

export type Action = 'fork' | 'rewrite' | 'restore' | 'fork-restore';

export interface PreviewError {
  code: string;
  message: string;
}

export interface Preview {
  action: Action;
  promptUuid: string;
  /** The session the preview was made on (the selection may move while it is open). */
  session: string;
  loading: boolean;
  error: PreviewError | null;
  rewind: ResponseOf<'previewRewind'> | null;
  restore: ResponseOf<'previewRestore'> | null;
  applying: boolean;
  /** The transcript changed after the preview was made: it may no longer be what happens. */
  stale: boolean;
}

export interface ActionResult {
  title: string;
  forkSessionId: string | null;
  /** How to continue the session in the agent's own CLI (from the service: the renderer names no agent). */
  resumeCommand: string | null;
  /** The prompts handed back to edit, oldest first: one box each. */
  handedBack: string[];
  projectRoot: string | null;
  undoable: boolean;
  undone: string | null;
  error: PreviewError | null;
  /** Where the action started: Undo goes back there with the same prompt selected. */
  sourceSession: string;
  promptUuid: string;
}

export interface ActionSlice {
  preview: Preview | null;
  result: ActionResult | null;
  openPreview: (action: Action, promptUuid?: string) => Promise<void>;
  closePreview: () => void;
  /** Make the preview again (after the transcript changed). */
  reviewAgain: () => Promise<void>;
  confirm: (force?: boolean) => Promise<void>;
  /** `force`: undo even what changed since (the service keeps what it replaces). `answered`: called once the service answered, before the window reloads. */
  undo: (force?: boolean, answered?: () => void) => Promise<void>;
  dismissResult: () => void;
  /** The open preview's transcript changed on disk. */
  markPreviewStale: (session: string) => void;
}

export const ACTION_LABEL: Record<Action, string> = {
  fork: 'Fork here',
  rewrite: 'Rewrite here',
  restore: 'Restore code to here',
  'fork-restore': 'Fork + restore code',
};

/** What the eligibility rules need to know about a prompt, read off the timeline. */
export function promptFacts(t: Timeline, p: TimelinePrompt): PromptFacts {
  let firstOfItsPath = p.number === 1;
  if (p.number === null) {
    const branch = t.branches.find((b) => b.forkPoint === p.forkPoint);
    const sameBranch = t.prompts.filter((q) => q.lane === p.lane && q.forkPoint === p.forkPoint && q.number === null);
    firstOfItsPath = !!branch && branch.afterPromptUuid === null && sameBranch[0]?.uuid === p.uuid;
  }
  return { number: p.number, forkPoint: p.forkPoint, firstOfItsPath, hasRewindCheckpoint: !!p.checkpoint && !p.checkpoint.later, hasAgentCheckpoint: !!p.nativeCheckpoint };
}

export function actionEligibility(s: Pick<Store, 'timeline' | 'sessions' | 'selectedSession'> & { agents?: Store['agents'] }, action: Action, uuid: string): Eligibility {
  const t = s.timeline;
  const p = t?.prompts.find((x) => x.uuid === uuid);
  if (!t || !p) return { enabled: false, reason: null };
  const sessionLive = s.sessions.some((x) => x.transcriptPath === s.selectedSession && x.live);
  // Code goes back from Rewind's checkpoints (any agent) or the agent's own store, when its adapter keeps one.
  const agent = s.agents?.find((a) => a.id === t.session.agent);
  const facts = promptFacts(t, p);
  // A store the timeline does not mark is asked when the preview opens (it says when it has nothing).
  if (agent?.code && !agent.codeMarks) facts.hasAgentCheckpoint = true;
  return eligibility(action, facts, { sessionLive });
}

const modeOf = (a: Action) => (a === 'rewrite' ? ('in-place' as const) : ('fork' as const));

export const createActionSlice: StateCreator<Store, [], [], ActionSlice> = (set, get) => ({
  preview: null,
  result: null,
  openPreview: async (action, uuid) => {
    const promptUuid = uuid ?? get().selectedPrompt;
    const session = get().selectedSession;
    const cwd = get().timeline?.session.cwd;
    // A read-only session (its agent or format): the detail pane says why instead.
    if (!promptUuid || !session || get().timeline?.session.readOnly) return;
    if (!actionEligibility(get(), action, promptUuid).enabled) return;
    set({ preview: { action, promptUuid, session, loading: true, error: null, rewind: null, restore: null, applying: false, stale: false } });
    const api = getApi();
    const current = () => get().preview?.promptUuid === promptUuid && get().preview?.action === action;
    if (action === 'restore') {
      const r = cwd ? await api.previewRestore({ project: cwd, ref: promptUuid, session }) : null;
      if (!current()) return;
      const error = !r ? { code: 'NOT_FOUND', message: 'This session has no project folder on this machine.' } : r.ok ? null : r.error;
      set({ preview: { ...get().preview!, loading: false, restore: r?.ok ? r.value : null, error } });
      return;
    }
    const r = await api.previewRewind({ session, promptUuid, mode: modeOf(action), withCode: action === 'fork-restore' });
    if (!current()) return;
    set({ preview: { ...get().preview!, loading: false, rewind: r.ok ? r.value : null, error: r.ok ? null : r.error } });
  },
  closePreview: () => set({ preview: null }),
  reviewAgain: async () => {
    const p = get().preview;
    if (p) await get().openPreview(p.action, p.promptUuid);
  },
  markPreviewStale: (session) => {
    const p = get().preview;
    if (p && p.session === session && !p.loading && !p.applying && !p.stale) set({ preview: { ...p, stale: true } });
  },
  confirm: async (force = false) => {
    const p = get().preview;
    const session = p?.session;
    const cwd = get().timeline?.session.cwd ?? null;
    if (!p || !session || p.loading || p.applying) return;
    set({ preview: { ...p, applying: true, error: null } });
    const api = getApi();
    if (p.action === 'restore') {
      const r = await api.applyRestore({ project: cwd!, ref: p.promptUuid, session, force });
      if (!r.ok) return set({ preview: { ...get().preview!, applying: false, error: r.error } });
      set({ preview: null, result: { title: r.value.summary, forkSessionId: null, resumeCommand: null, handedBack: [], projectRoot: cwd, undoable: true, undone: null, error: null, sourceSession: session, promptUuid: p.promptUuid } });
      return;
    }
    // The size the preview was made at: a transcript that changed since is refused, not silently re-planned.
    const expectSize = p.rewind?.chat.sizeAtPlan ?? undefined;
    const r = await api.applyRewind({ session, promptUuid: p.promptUuid, mode: modeOf(p.action), withCode: p.action === 'fork-restore', force, expectSize });
    if (!r.ok) return set({ preview: { ...get().preview!, applying: false, error: r.error } });
    const v = r.value;
    const files = v.code ? ` · ${plural(v.code.written + v.code.deleted, 'file')} restored` : '';
    set({
      preview: null,
      result: {
        title: v.forkSessionId ? `Fork created${files}` : `Chat rewritten in place${files}`,
        forkSessionId: v.forkSessionId,
        resumeCommand: v.resumeCommand ?? null,
        handedBack: v.chat.statement ? v.chat.statement.handedBack.map((x) => x.text) : v.chat.prompts.map((x) => x.text),
        projectRoot: v.projectRoot,
        undoable: !!v.projectRoot,
        undone: null,
        error: null,
        sourceSession: session,
        promptUuid: p.promptUuid,
      },
    });
    if (v.forkPath) {
      await get().loadSessions();
      get().selectSession(v.forkPath);
    } else await get().loadTimeline(session);
  },
  undo: async (force = false, answered) => {
    const last = get().result;
    // The result bar's own action while it can still be undone; else the project's newest action.
    const r = last?.undoable && last.projectRoot ? last : null;
    const project = r?.projectRoot ?? last?.projectRoot ?? get().timeline?.session.cwd ?? null;
    if (!project) return;
    const u = await getApi().undo({ project, force });
    answered?.();
    const base: ActionResult = r ?? { title: 'Undo', forkSessionId: null, resumeCommand: null, handedBack: [], projectRoot: project, undoable: false, undone: null, error: null, sourceSession: get().selectedSession ?? '', promptUuid: get().selectedPrompt ?? '' };
    if (!u.ok) return set({ result: { ...base, error: u.error } });
    set({ result: { ...base, undone: u.value.summary, undoable: false, error: null } });
    await get().loadSessions();
    // Back where the action started, on the same prompt, with the focus on its row.
    if (base.sourceSession && get().selectedSession !== base.sourceSession) get().selectSession(base.sourceSession);
    else if (base.sourceSession) await get().loadTimeline(base.sourceSession);
    if (base.promptUuid) get().selectPrompt(base.promptUuid);
    // After React drew the change (the old list may still be in the page now): the row's list, or it takes focus when it arrives.
    requestAnimationFrame(() => focusTimeline());
  },
  dismissResult: () => set({ result: null }),
});
