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
  /** The sidebar lists only this agent's sessions; null: every agent's. */
  agentFilter: string | null;
  /** Prompts matching the filter, across all sessions (from the service). */
  promptMatches: { transcriptPath: string; promptUuid: string; snippet: string | null; highlights?: [number, number][] }[];
  promptMatchesTruncated: boolean;
  /** What the search found in all: matching prompts and the sessions holding them (as `rewind-app search` counts). */
  promptHits: { prompts: number; sessions: number };
  /** A prompt search is on its way: the filter says "Searching…", not "no match", until it answers. */
  searching: boolean;
  selectedSession: string | null;
  /** The sidebar row the keyboard is on (a session's path or a match key); null: the selected session. */
  sidebarCursor: string | null;
  /** Opens a sidebar row: a session, or a prompt match (its session, then the prompt). */
  pickSidebarItem: (key: string) => void;
  loadSessions: () => Promise<void>;
  selectSession: (transcriptPath: string) => void;
  setFilter: (f: string) => void;
  setAgentFilter: (agent: string | null) => void;
  openDemo: () => Promise<void>;
  /** One session grew or changed: its row is replaced (or added), nothing is listed again. */
  patchSession: (s: SessionSummary) => void;
}

const listAndSettings = () => Promise.all([getApi().listSessions({}), getApi().getSettings({})]);
let prefetched: ReturnType<typeof listAndSettings> | null = null;
/** Asks for the list before the first render (main.tsx): the first loadSessions takes this answer. */
export function prefetchSessions(): void {
  prefetched ??= listAndSettings();
}
function takePrefetched(): ReturnType<typeof listAndSettings> | null {
  const p = prefetched;
  prefetched = null;
  return p;
}

let searchTimer: ReturnType<typeof setTimeout> | null = null;
/** A prompt to select once its session's timeline has loaded (a filter match in another session). */
let pendingPrompt: string | null = null;
export function takePendingPrompt(): string | null {
  const p = pendingPrompt;
  pendingPrompt = null;
  return p;
}

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
  agentFilter: null,
  promptMatches: [],
  promptMatchesTruncated: false,
  promptHits: { prompts: 0, sessions: 0 },
  searching: false,
  selectedSession: null,
  sidebarCursor: null,
  pickSidebarItem: (key) => {
    set({ sidebarCursor: key });
    if (!key.startsWith('match:')) return get().selectSession(key);
    const m = get().promptMatches.find((x) => `match:${x.transcriptPath}:${x.promptUuid}` === key);
    if (!m) return;
    if (get().selectedSession !== m.transcriptPath) {
      get().selectSession(m.transcriptPath);
      // The timeline loads first; the prompt is selected once it is there.
      pendingPrompt = m.promptUuid;
    } else get().selectPrompt(m.promptUuid);
  },
  loadSessions: async () => {
    const [r, s] = await (takePrefetched() ?? listAndSettings());
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
  setAgentFilter: (agentFilter) => set({ agentFilter, sidebarCursor: null }),
  setFilter: (filter) => {
    set({ filter });
    if (searchTimer) clearTimeout(searchTimer);
    if (filter.trim().length < 2) return set({ promptMatches: [], promptMatchesTruncated: false, promptHits: { prompts: 0, sessions: 0 }, searching: false });
    set({ searching: true });
    searchTimer = setTimeout(async () => {
      const r = await getApi().searchPrompts({ query: filter.trim() });
      if (get().filter !== filter) return;
      if (!r.ok) return set({ promptMatches: [], promptMatchesTruncated: false, promptHits: { prompts: 0, sessions: 0 }, searching: false });
      set({ promptMatches: r.value.matches, promptMatchesTruncated: r.value.truncated, promptHits: { prompts: r.value.totalHits, sessions: r.value.sessions.length }, searching: false });
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
