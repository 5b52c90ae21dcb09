import type { StateCreator } from 'zustand';
import type { RemoteStatus } from '../../../shared/contract.js';
import { getApi } from '../api/client.js';
import type { Store } from './store.js';

export interface RemotesSlice {
  /** The remote hosts the user added, each with its connection's state (one line when lost). */
  remotes: RemoteStatus[];
  remoteError: string | null;
  loadRemotes: () => Promise<void>;
  addRemote: (target: string, name?: string) => Promise<boolean>;
  reconnectRemote: (name: string) => Promise<void>;
  removeRemote: (name: string) => Promise<void>;
  /** A host's state changed (the service's remoteStatus event). */
  patchRemote: (h: RemoteStatus) => void;
}

export const createRemotesSlice: StateCreator<Store, [], [], RemotesSlice> = (set, get) => ({
  remotes: [],
  remoteError: null,
  loadRemotes: async () => {
    const r = await getApi().listRemotes({});
    if (r.ok) set({ remotes: r.value.hosts });
  },
  addRemote: async (target, name) => {
    set({ remoteError: null });
    const r = await getApi().addRemote(name ? { target, name } : { target });
    if (!r.ok) {
      set({ remoteError: r.error.message });
      return false;
    }
    set({ remotes: r.value.hosts });
    return true;
  },
  reconnectRemote: async (name) => {
    const r = await getApi().reconnectRemote({ name });
    if (r.ok) set({ remotes: r.value.hosts });
  },
  removeRemote: async (name) => {
    const r = await getApi().removeRemote({ name });
    if (r.ok) set({ remotes: r.value.hosts });
    void get().loadSessions();
  },
  patchRemote: (h) => {
    const list = get().remotes;
    set({ remotes: list.some((x) => x.name === h.name) ? list.map((x) => (x.name === h.name ? h : x)) : [...list, h] });
  },
});
