import { resolve } from 'node:path';
import { processTable } from '../io/process-list.js';
import type { AgentAdapter, OpenLook, OpenMarker } from './adapter.js';

/**
 * One call's look at what is open (a list, a check, a rewind's preview or its apply): each agent's
 * markers asked once, the process table read once for every agent known by its processes, each
 * project's journal read once. Never kept past the call: a session opened between a preview and
 * its apply is seen by the apply's own snapshot.
 */
export interface OpenSnapshot {
  markers(adapter: AgentAdapter, root: string): Promise<OpenMarker[]>;
  /** Files Rewind wrote in these project folders, with the size it left (`rewindWrites`). */
  rewindWrote(cwds: string[]): Promise<Map<string, number>>;
}

export function openSnapshot(): OpenSnapshot {
  let look: OpenLook | null = null;
  const asked = new Map<string, Promise<OpenMarker[]>>();
  const journals = new Map<string, Promise<Map<string, number>>>();
  return {
    markers(adapter, root) {
      const key = `${adapter.id}\0${root}`;
      let p = asked.get(key);
      if (!p) {
        look ??= { processes: processTable() };
        p = adapter.openSessions ? adapter.openSessions(root, look).catch(() => [] as OpenMarker[]) : Promise.resolve([]);
        asked.set(key, p);
      }
      return p;
    },
    async rewindWrote(cwds) {
      const out = new Map<string, number>();
      for (const cwd of new Set(cwds.map((c) => resolve(c)))) {
        let p = journals.get(cwd);
        if (!p) journals.set(cwd, (p = import('../journal/session-annotations.js').then((m) => m.rewindWritesIn([cwd])).catch(() => new Map<string, number>())));
        for (const [k, v] of await p) out.set(resolve(k), v);
      }
      return out;
    },
  };
}
