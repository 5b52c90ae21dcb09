import type { StateCreator } from 'zustand';
import type { SessionSummary } from '../../../shared/session-schema.js';
import { getApi } from '../api/client.js';
import type { Store } from './store.js';

export interface SessionsSlice {
  sessions: SessionSummary[];
  claudeRoot: string | null;
  sessionsError: string | null;
  selectedSession: string | null;
  loadSessions: () => Promise<void>;
  selectSession: (id: string) => void;
}

export const createSessionsSlice: StateCreator<Store, [], [], SessionsSlice> = (set, get) => ({
  sessions: [],
  claudeRoot: null,
  sessionsError: null,
  selectedSession: null,
  loadSessions: async () => {
    const api = getApi();
    if (!api) return set({ sessionsError: 'Not connected to the Rewind service.' });
    const r = await api.listSessions({});
    if (!r.ok) return set({ sessionsError: r.error.message });
    set({ sessions: r.value.sessions, claudeRoot: r.value.root, sessionsError: null });
    const first = r.value.sessions[0];
    if (!get().selectedSession && first) get().selectSession(first.transcriptPath);
  },
  selectSession: (id) => {
    set({ selectedSession: id });
    void get().loadTimeline(id);
  },
});
