import type { StateCreator } from 'zustand';
import type { AgentInfo, SessionSummary } from '../../../shared/session-schema.js';
import { getApi } from '../api/client.js';
import type { Store } from './store.js';

export interface SessionsSlice {
  sessions: SessionSummary[];
  /** The agents the service reads, first = the default (untagged in the list). */
  agents: AgentInfo[];
  sessionsLoaded: boolean;
  claudeRoot: string | null;
  rootExists: boolean;
  /** The Claude folder itself: missing, empty, or holding something (but maybe no sessions). */
  rootState: 'missing' | 'empty' | 'present';
  demo: boolean;
  sessionsError: string | null;
  filter: string;
  /** Prompts matching the filter, across all sessions (from the service). */
  promptMatches: { transcriptPath: string; promptUuid: string; snippet: string; highlights?: [number, number][] }[];
  selectedSession: string | null;
  loadSessions: () => Promise<void>;
  selectSession: (transcriptPath: string) => void;
  setFilter: (f: string) => void;
  openDemo: () => Promise<void>;
  /** One session grew or changed: its row is replaced (or added), nothing is listed again. */
  patchSession: (s: SessionSummary) => void;
}

let searchTimer: ReturnType<typeof setTimeout> | null = null;

export const createSessionsSlice: StateCreator<Store, [], [], SessionsSlice> = (set, get) => ({
  sessions: [],
  agents: [],
  sessionsLoaded: false,
  claudeRoot: null,
  rootExists: true,
  rootState: 'present',
  demo: false,
  sessionsError: null,
  filter: '',
  promptMatches: [],
  selectedSession: null,
  loadSessions: async () => {
    const api = getApi();
    const [r, s] = await Promise.all([api.listSessions({}), api.getSettings({})]);
    if (!r.ok) return set({ sessionsError: r.error.message, sessionsLoaded: true });
    set({ sessions: r.value.sessions, agents: r.value.agents, claudeRoot: r.value.root, rootExists: r.value.exists, rootState: r.value.rootState, sessionsError: null, sessionsLoaded: true, demo: s.ok ? s.value.demo : false });
    const selected = get().selectedSession;
    const first = r.value.sessions[0];
    if (!selected && first) get().selectSession(first.transcriptPath);
  },
  selectSession: (transcriptPath) => {
    if (get().selectedSession === transcriptPath) return;
    set({ selectedSession: transcriptPath, selectedPrompt: null, timeline: null, layout: null, turns: {}, preview: null });
    void get().loadTimeline(transcriptPath);
  },
  setFilter: (filter) => {
    set({ filter });
    if (searchTimer) clearTimeout(searchTimer);
    if (filter.trim().length < 2) return set({ promptMatches: [] });
    searchTimer = setTimeout(async () => {
      const r = await getApi().searchPrompts({ query: filter.trim() });
      if (get().filter === filter) set({ promptMatches: r.ok ? r.value.matches : [] });
    }, 200);
  },
  patchSession: (row) => {
    const sessions = get().sessions.filter((s) => s.transcriptPath !== row.transcriptPath);
    // Newest first: the row goes where its last activity puts it.
    const at = sessions.findIndex((s) => s.lastActivity <= row.lastActivity);
    sessions.splice(at === -1 ? sessions.length : at, 0, row);
    set({ sessions });
  },
  openDemo: async () => {
    const r = await getApi().setSettings({ demo: true });
    if (!r.ok) return set({ sessionsError: r.error.message });
    set({ selectedSession: null, timeline: null, layout: null });
    await get().loadSessions();
  },
});
