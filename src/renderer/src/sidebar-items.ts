import type { RemoteStatus } from '../../shared/contract.js';
import type { SessionSummary } from '../../shared/session-schema.js';

export interface PromptMatch {
  transcriptPath: string;
  promptUuid: string;
  /** Null past the service's snippet budget (a very common word): listed, walkable, without its text. */
  snippet: string | null;
}

export type SidebarItem =
  /** A machine's heading, once remote hosts are added: this one (status null), then each host. */
  | { kind: 'host'; key: string; host: string | null; status: RemoteStatus | null; sessions: number }
  | { kind: 'group'; key: string; project: string }
  | { kind: 'session'; key: string; session: SessionSummary }
  | { kind: 'match'; key: string; session: SessionSummary; match: PromptMatch };

/** When a session began: it does not change while the agent writes, so the order stays calm. */
const began = (s: SessionSummary) => s.createdAt ?? s.lastActivity;

/**
 * Pure: the sidebar's rows, projects grouped. Groups are ordered by their newest session's start and
 * sessions by their start, newest first: a session being written never moves, and a group moves
 * only when a new session begins in it. `agent` keeps one agent's sessions (and their matches) only.
 */
export function sidebarItems(
  sessions: SessionSummary[],
  filter: string,
  matches: PromptMatch[],
  extraText?: (s: SessionSummary) => string[],
  agent: string | null = null,
  hosts: RemoteStatus[] = [],
): SidebarItem[] {
  if (hosts.length === 0 && !sessions.some((s) => s.host)) return projectItems(sessions, filter, matches, extraText, agent);
  // Grouped by machine: this one first, then each host in the order it was added (a lost host keeps its heading and its one line).
  const names = [...hosts.map((h) => h.name), ...sessions.map((s) => s.host).filter((h): h is string => !!h)];
  const order: (string | null)[] = [null, ...new Set(names)];
  const items: SidebarItem[] = [];
  for (const host of order) {
    const mine = sessions.filter((s) => (s.host ?? null) === host);
    const rows = projectItems(mine, filter, matches, extraText, agent);
    if (host === null && rows.length === 0) continue;
    items.push({ kind: 'host', key: `host:${host ?? ''}`, host, status: hosts.find((h) => h.name === host) ?? null, sessions: rows.filter((r) => r.kind === 'session').length });
    items.push(...rows);
  }
  return items;
}

function projectItems(sessions: SessionSummary[], filter: string, matches: PromptMatch[], extraText?: (s: SessionSummary) => string[], agent: string | null = null): SidebarItem[] {
  const q = filter.trim().toLowerCase();
  const matchedSessions = new Set(matches.map((m) => m.transcriptPath));
  const keep = (s: SessionSummary) => {
    if (agent && s.agent !== agent) return false;
    if (!q) return true;
    if (matchedSessions.has(s.transcriptPath)) return true;
    const hay = [s.title, s.firstPrompt ?? '', s.lastPrompt ?? '', s.cwd ?? '', s.id, ...(extraText?.(s) ?? [])];
    return hay.some((h) => h.toLowerCase().includes(q));
  };
  const byProject = new Map<string, SessionSummary[]>();
  for (const s of sessions) {
    if (!keep(s)) continue;
    const key = s.cwd ?? s.projectDir;
    const list = byProject.get(key);
    if (list) list.push(s);
    else byProject.set(key, [s]);
  }
  const newest = new Map<string, string>();
  for (const [k, list] of byProject) {
    list.sort((a, b) => began(b).localeCompare(began(a)) || a.transcriptPath.localeCompare(b.transcriptPath));
    newest.set(k, began(list[0]!));
  }
  const groups = [...byProject.keys()].sort((a, b) => newest.get(b)!.localeCompare(newest.get(a)!) || a.localeCompare(b));
  const matchesBySession = new Map<string, PromptMatch[]>();
  if (q) for (const m of matches) matchesBySession.set(m.transcriptPath, [...(matchesBySession.get(m.transcriptPath) ?? []), m]);
  const items: SidebarItem[] = [];
  for (const g of groups) {
    items.push({ kind: 'group', key: `group:${g}`, project: g });
    for (const s of byProject.get(g)!) {
      items.push({ kind: 'session', key: s.transcriptPath, session: s });
      for (const m of matchesBySession.get(s.transcriptPath) ?? []) items.push({ kind: 'match', key: `match:${m.transcriptPath}:${m.promptUuid}`, session: s, match: m });
    }
  }
  return items;
}

/**
 * A snippet cut on whole words: the service cuts at characters, so a leading or trailing partial
 * word (next to its "…") is dropped.
 */
export function wholeWords(snippet: string): string {
  let s = snippet;
  if (s.startsWith('…')) {
    const sp = s.indexOf(' ');
    if (sp !== -1) s = `…${s.slice(sp + 1)}`;
  }
  if (s.endsWith('…')) {
    const sp = s.lastIndexOf(' ');
    if (sp > 1) s = `${s.slice(0, sp)}…`;
  }
  return s;
}

/** The [start, end) ranges of `query` in `text`, case-insensitive, not overlapping. */
export function matchRanges(text: string, query: string): [number, number][] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const hay = text.toLowerCase();
  const out: [number, number][] = [];
  for (let i = hay.indexOf(q); i !== -1; i = hay.indexOf(q, i + q.length)) out.push([i, i + q.length]);
  return out;
}
