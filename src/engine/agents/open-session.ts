import { basename, resolve } from 'node:path';
import { RewindError } from '../errors.js';
import { ancestorPids } from '../io/process-alive.js';
import type { OpenSession, SessionSummary } from '../../shared/session-schema.js';
import { openRefusal } from '../../shared/wording.js';
import type { AgentAdapter, OpenMarker, RewindOutcome, RewindRequest } from './adapter.js';
import { looseOpen } from './open-attribution.js';
import { openSnapshot, type OpenSnapshot } from './open-snapshot.js';

/**
 * Which sessions a running agent has open, for every agent alike (FORMATS.md §2d): the markers
 * come from each adapter's `openSessions`; here they are matched to session files, attached to
 * the list, and turned into the refusal every door gives (the CLI, the window, MCP, the HTTP API
 * all rewind through the registry, whose adapters carry `guardRewind`).
 */

type Roots = readonly { adapter: AgentAdapter; root: string }[];
type Found = { adapter: AgentAdapter; markers: OpenMarker[] }[];

const samePath = (a: string | null, b: string | null) => a !== null && b !== null && resolve(a) === resolve(b);

function openOf(adapter: AgentAdapter, m: OpenMarker, exact: boolean): OpenSession {
  return { agent: adapter.id, pid: m.pid, status: m.status, since: m.since, exact };
}

/** The root the agent's markers for this file live under (a file's own store, else the given root, else env's). */
export function markerRoot(adapter: AgentAdapter, path: string, root?: string | null): string {
  const fallback = root ?? adapter.root(process.env);
  return adapter.storeRootOf ? adapter.storeRootOf(path, fallback) : fallback;
}

/** The session id the markers use for a file. */
export async function markerIdOf(adapter: AgentAdapter, path: string): Promise<string | null> {
  return adapter.sessionIdOf ? adapter.sessionIdOf(path) : basename(path, '.jsonl');
}

/**
 * Is this session file open in a running agent? By the marker naming its id; else (agents without
 * markers) by an agent process working in the session's folder that has it open (`attributeOpen`).
 * Null when no agent has it open (or the agent has no way to tell). `snap`: the call's snapshot.
 */
export async function openStateOf(adapter: AgentAdapter, path: string, root?: string | null, hint: { cwd?: string | null } = {}, snap: OpenSnapshot = openSnapshot()): Promise<OpenSession | null> {
  if (!adapter.openSessions) return null;
  const r = markerRoot(adapter, path, root);
  const markers = await snap.markers(adapter, r);
  if (markers.length === 0) return null;
  const id = await markerIdOf(adapter, path).catch(() => null);
  const named = markers.find((m) => m.sessionId !== null && m.sessionId === id);
  if (named) return openOf(adapter, named, true);
  const cwd = hint.cwd !== undefined ? hint.cwd : (await adapter.timeline(path).catch(() => null))?.session.cwd ?? null;
  const loose = markers.filter((m) => m.sessionId === null && samePath(m.cwd, cwd));
  if (loose.length === 0 || cwd === null) return null;
  const listed = await adapter.summarize(r, { project: cwd }).catch(() => [] as SessionSummary[]);
  const m = looseOpen(markers, loose, listed, await snap.rewindWrote([cwd])).get(resolve(path));
  return m ? openOf(adapter, m, false) : null;
}

/** Every agent's open sessions, asked once per agent (for a list). */
export async function openMarkers(roots: Roots, snap: OpenSnapshot = openSnapshot()): Promise<Found> {
  const out: Found = [];
  for (const { adapter, root } of roots) {
    if (!adapter.openSessions) continue;
    const markers = await snap.markers(adapter, root);
    if (markers.length > 0) out.push({ adapter, markers });
  }
  return out;
}

/** What a list needs to mark its open sessions, asked once: every agent's markers, and the journals of the folders agents without markers work in. */
export interface OpenFound {
  found: Found;
  rewindWrote: ReadonlyMap<string, number>;
}

export async function openFound(roots: Roots, snap: OpenSnapshot = openSnapshot()): Promise<OpenFound> {
  const found = await openMarkers(roots, snap);
  const cwds = found.flatMap(({ markers }) => markers.filter((m) => m.sessionId === null && m.cwd !== null).map((m) => m.cwd!));
  return { found, rewindWrote: cwds.length > 0 ? await snap.rewindWrote(cwds) : new Map() };
}

/** The list with `open` set on each session a running agent has (a process without a marker: `attributeOpen` among its folder's sessions). */
export function withOpen(sessions: SessionSummary[], { found, rewindWrote }: OpenFound): SessionSummary[] {
  if (found.length === 0) return sessions;
  const open = new Map<SessionSummary, OpenSession>();
  for (const { adapter, markers } of found) {
    const mine = sessions.filter((s) => s.agent === adapter.id && !s.host);
    for (const m of markers) {
      if (m.sessionId === null) continue;
      const s = mine.find((x) => x.id === m.sessionId);
      if (s) open.set(s, openOf(adapter, m, true));
    }
    const loose = markers.filter((m) => m.sessionId === null && m.cwd !== null);
    for (const cwd of new Set(loose.map((m) => resolve(m.cwd!)))) {
      const here = mine.filter((x) => samePath(x.cwd, cwd));
      const byPath = looseOpen(markers, loose.filter((m) => samePath(m.cwd, cwd)), here, rewindWrote);
      for (const s of here) {
        const m = byPath.get(resolve(s.transcriptPath));
        if (m && !open.has(s)) open.set(s, openOf(adapter, m, false));
      }
    }
  }
  return open.size === 0 ? sessions : sessions.map((s) => (open.has(s) ? { ...s, open: open.get(s)! } : s));
}

/** Sessions of the listed agents that are open, for a list: `withOpen` over every root, from one snapshot. */
export async function markOpen(sessions: SessionSummary[], roots: Roots): Promise<SessionSummary[]> {
  return withOpen(sessions, await openFound(roots));
}

/** Refuses (SESSION_OPEN, one line: the agent, its pid, the ways on) when an agent has the session open; `busyOnly`: only mid-turn. */
export async function refuseIfOpen(adapter: AgentAdapter, path: string, root: string | null | undefined, kind: 'rewrite' | 'restore'): Promise<OpenSession | null> {
  const open = await openStateOf(adapter, path, root);
  if (!open) return null;
  if (kind === 'restore' && open.status !== 'busy') return open;
  throw new RewindError('SESSION_OPEN', openRefusal(adapter.displayName, open, kind));
}

/**
 * The agent's `rewind` behind the open-session rule: an in-place rewrite (its preview too) of a
 * session an agent has open is refused, `force` or not, and checked again right before the write
 * (a session opened since the preview is refused then), unless the agent applies it itself
 * (`rewindThroughAgent`); a fork goes ahead and says how to continue on it in that agent.
 */
export function guardRewind<A extends AgentAdapter>(adapter: A): A {
  const rewind = adapter.rewind;
  if (!rewind) return adapter;
  const guarded = async (req: RewindRequest): Promise<RewindOutcome> => {
    if (req.mode === 'in-place') {
      const open = await openStateOf(adapter, req.transcriptPath, req.agentRoot);
      if (open) {
        // The agent applies it itself where it offers a way (and is reachable); else refused.
        const through = adapter.rewindThroughAgent ? await adapter.rewindThroughAgent(req, open) : null;
        if (through) return { open, ...through };
        throw new RewindError('SESSION_OPEN', openRefusal(adapter.displayName, open, 'rewrite'));
      }
    }
    // Asked before the fork is written (the fork, Rewind's own write, is never the one an agent has open).
    const open = req.mode === 'fork' ? await openStateOf(adapter, req.transcriptPath, req.agentRoot).catch(() => null) : null;
    const out = await rewind.call(adapter, req);
    if (req.mode !== 'fork' || !open) return out;
    return { ...out, open, handBack: out.forkSessionId ? handBackLine(adapter, open, out.forkSessionId) : null };
  };
  return { ...adapter, rewind: guarded };
}

/** After a fork of an open session: how to continue on the fork in that agent (its own switch, else quit and resume). */
export function handBackLine(adapter: AgentAdapter, open: OpenSession, forkId: string): string {
  if (adapter.resumeInOpen) return `${adapter.displayName} (pid ${open.pid}) has the original open: type ${adapter.resumeInOpen(forkId)} in it to continue on the fork (or quit it and run ${adapter.resumeCommand(forkId)})`;
  return `${adapter.displayName} (pid ${open.pid}) has the original open: quit it, then continue on the fork with ${adapter.resumeCommand(forkId)}`;
}

/**
 * Are we running inside an agent (a shell the agent started, `! rewind-app back 1`)? The nearest
 * ancestor process a live marker names, with the session it has open.
 */
export async function insideAgent(roots: Roots, ancestors: number[] = ancestorPids()): Promise<{ adapter: AgentAdapter; marker: OpenMarker } | null> {
  const found = await openMarkers(roots);
  for (const pid of ancestors) {
    for (const { adapter, markers } of found) {
      const m = markers.find((x) => x.pid === pid);
      if (m) return { adapter, marker: m };
    }
  }
  return null;
}

const inside = (dir: string, root: string) => {
  const d = resolve(dir);
  const r = resolve(root);
  return d === r || d.startsWith(r.endsWith('/') || r.endsWith('\\') ? r : `${r}${d.includes('\\') ? '\\' : '/'}`);
};

/**
 * An agent working in the project right now (its open session's folder inside `projectRoot`, or
 * the session `transcriptPath` itself open): busy first. A code restore is refused while one is
 * busy (mid-turn), and its preview says when one is idle.
 */
export async function agentOpenIn(projectRoot: string, roots: Roots, transcriptPath?: string | null): Promise<{ adapter: AgentAdapter; open: OpenSession } | null> {
  const hits: { adapter: AgentAdapter; open: OpenSession }[] = [];
  const snap = openSnapshot();
  for (const { adapter, markers } of await openMarkers(roots, snap)) {
    for (const m of markers) if (m.cwd !== null && inside(m.cwd, projectRoot)) hits.push({ adapter, open: openOf(adapter, m, m.sessionId !== null) });
  }
  if (transcriptPath) {
    const { adapterOfFile } = await import('./registry.js');
    const adapter = await adapterOfFile(transcriptPath).catch(() => null);
    const open = adapter ? await openStateOf(adapter, transcriptPath, roots.find((r) => r.adapter.id === adapter.id)?.root, {}, snap).catch(() => null) : null;
    if (adapter && open) hits.push({ adapter, open });
  }
  return hits.find((h) => h.open.status === 'busy') ?? hits[0] ?? null;
}

/** Refuses a code restore while an agent is busy in the project (SESSION_OPEN); an idle one is returned for the preview to name. */
export async function refuseRestoreWhileBusy(projectRoot: string, roots: Roots, transcriptPath?: string | null): Promise<{ adapter: AgentAdapter; open: OpenSession } | null> {
  const hit = await agentOpenIn(projectRoot, roots, transcriptPath);
  if (hit?.open.status === 'busy') throw new RewindError('SESSION_OPEN', openRefusal(hit.adapter.displayName, hit.open, 'restore'));
  return hit;
}
