import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { SessionSummary, Timeline } from '../../../shared/session-schema.js';
import { plural } from '../format.js';
import { sessionLabel } from '../session-label.js';
import { sidebarItems, wholeWords, type SidebarItem } from '../sidebar-items.js';
import { useStore } from '../store/store.js';
import { displayRef } from '../../../shared/remote-ref.js';
import { Highlight } from './highlight.js';
import { AddHost, HostRow } from './remote-hosts.js';
import { SessionRow } from './session-row.js';
import { useNow } from './use-now.js';
import { PrefsNotice } from './prefs-notice.js';

const HEIGHT: Record<SidebarItem['kind'], number> = { host: 40, group: 34, session: 52, match: 26 };

export const sidebarItemId = (key: string) => `side-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** The sidebar's rows as shown now (the keyboard walks the same list). */
export function useSidebarItems(): SidebarItem[] {
  const sessions = useStore((s) => s.sessions);
  const filter = useStore((s) => s.filter);
  const timeline = useStore((s) => s.timeline);
  const matches = useStore((s) => s.promptMatches);
  const names = useStore((s) => s.prefs.names);
  const agent = useStore((s) => s.agentFilter);
  const remotes = useStore((s) => s.remotes);
  return useMemo(
    () => sidebarItems(sessions, filter, matches, (s) => [names[s.id] ?? '', ...(timeline && s.transcriptPath === timeline.session.transcriptPath ? timeline.prompts.map((p) => p.text) : [])], agent, remotes),
    [sessions, filter, timeline, matches, names, agent, remotes],
  );
}

export function Sidebar() {
  const items = useSidebarItems();
  const selected = useStore((s) => s.selectedSession);
  const cursor = useStore((s) => s.sidebarCursor);
  const pick = useStore((s) => s.pickSidebarItem);
  const filter = useStore((s) => s.filter);
  const setFilter = useStore((s) => s.setFilter);
  const truncated = useStore((s) => s.promptMatchesTruncated);
  const hits = useStore((s) => s.promptHits);
  const searching = useStore((s) => s.searching);
  const demo = useStore((s) => s.demo);
  const agents = useStore((s) => s.agents);
  const timeline = useStore((s) => s.timeline);
  const names = useStore((s) => s.prefs.names);
  const sessions = useStore((s) => s.sessions);
  const byId = useMemo(() => new Map(sessions.map((s) => [s.id, s])), [sessions]);
  const now = useNow();
  const scroller = useRef<HTMLElement>(null);
  const virtualizer = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: (i) => HEIGHT[items[i]!.kind], overscan: 8 });
  const active = cursor ?? selected;
  const activeIndex = items.findIndex((x) => x.key === active);
  useEffect(() => {
    if (activeIndex !== -1) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [activeIndex, virtualizer]);
  const agentFilter = useStore((s) => s.agentFilter);
  const setAgentFilter = useStore((s) => s.setAgentFilter);
  // Offered once sessions of two agents are listed: each agent with its session count.
  const perAgent = agents.map((a) => ({ ...a, count: sessions.filter((x) => x.agent === a.id).length })).filter((a) => a.count > 0);
  const q = filter.trim();
  const sessionsShown = items.filter((x) => x.kind === 'session').length;
  return (
    <aside className="sidebar" aria-label="Sessions">
      <div className="brand">
        <span className="logo" aria-hidden>
          ⟲
        </span>
        Rewind
        {demo && <span className="badge">demo</span>}
      </div>
      <div className="filter">
        <input id="session-filter" type="search" placeholder="Filter sessions and prompts   /" aria-label="Filter sessions and prompts" value={filter} onChange={(e) => setFilter(e.target.value)} />
        {(perAgent.length > 1 || agentFilter) && (
          <select className="agent-filter" aria-label="Agent" value={agentFilter ?? ''} onChange={(e) => setAgentFilter(e.target.value || null)}>
            <option value="">All agents ({sessions.length})</option>
            {perAgent.map((a) => (
              <option key={a.id} value={a.id}>
                {a.displayName} ({a.count})
              </option>
            ))}
          </select>
        )}
        {q && (
          <p className="wg-filter-count" role="status">
            {searching ? 'Searching…' : filterCount(hits, sessionsShown, truncated)}
            {q.length >= 2 ? '' : ' (type 2 letters to search prompts)'}
          </p>
        )}
      </div>
      <AddHost />
      {/* Not a listbox: each row holds its own buttons (open, rename); ↑/↓ move the ring (.wg-cursor). */}
      <nav className="session-groups" ref={scroller} tabIndex={0} aria-label="Sessions list">
        {items.length === 0 && <p className="muted pad">{filter ? (searching ? 'Searching…' : 'No session matches.') : 'No sessions yet.'}</p>}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const it = items[v.index]!;
            const style = { position: 'absolute' as const, top: 0, left: 0, right: 0, height: HEIGHT[it.kind], transform: `translateY(${v.start}px)` };
            if (it.kind === 'host') return <HostRow key={it.key} style={style} host={it.host} status={it.status} sessions={it.sessions} />;
            if (it.kind === 'group')
              return (
                <h2 key={it.key} className="wg-group" style={style} title={displayRef(it.project)}>
                  {it.project.split('/').filter(Boolean).slice(-2).join('/') || it.project}
                </h2>
              );
            const isCursor = it.key === active;
            if (it.kind === 'match')
              return (
                <div key={it.key} id={sidebarItemId(it.key)} style={style} className={`match${isCursor ? ' wg-cursor' : ''}`} onClick={() => pick(it.key)}>
                  {it.match.snippet !== null ? <Highlight text={wholeWords(it.match.snippet)} query={q} /> : <span>{matchText(it.match.promptUuid, it.session.transcriptPath, timeline)}</span>}
                </div>
              );
            const s = it.session;
            return (
              <div key={it.key} id={sidebarItemId(it.key)} style={style} className={`wg-session${isCursor ? ' wg-cursor' : ''}`}>
                <SessionRow
                  session={s}
                  label={sessionLabel(s, names, byId)}
                  badge={s.agent !== agents[0]?.id ? (agents.find((a) => a.id === s.agent)?.badge ?? s.agent) : null}
                  selected={s.transcriptPath === selected}
                  now={now}
                  onSelect={() => pick(it.key)}
                  project={s.cwd ?? s.projectDir}
                  promptsText={promptsLabel(s, timeline)}
                  query={q}
                />
              </div>
            );
          })}
        </div>
      </nav>
      <PrefsNotice />
    </aside>
  );
}

/**
 * "36 prompts in 5 sessions", the counts `rewind-app search` gives; sessions listed for their name
 * or folder alone are added ("· 2 more by name").
 */
export function filterCount(hits: { prompts: number; sessions: number }, sessionsShown: number, truncated: boolean): string {
  if (hits.prompts === 0) return plural(sessionsShown, 'session');
  const more = sessionsShown - hits.sessions;
  return `${plural(hits.prompts, 'prompt')}${truncated ? '+' : ''} in ${plural(hits.sessions, 'session')}${more > 0 ? ` · ${more} more by name` : ''}`;
}

/** A match listed without a snippet: the prompt's own first line when its session is open. */
function matchText(uuid: string, transcriptPath: string, t: Timeline | null): string {
  const p = t && t.session.transcriptPath === transcriptPath ? t.prompts.find((x) => x.uuid === uuid) : undefined;
  return p ? p.text.split('\n')[0]!.slice(0, 160) : 'a matching prompt';
}

/**
 * The same count as the timeline header: prompts on the live path (from the open timeline, or the
 * summary's counts); a summary that has not parsed the session says how many prompts the file holds.
 */
function promptsLabel(s: SessionSummary, t: Timeline | null): string {
  if (t && t.session.transcriptPath === s.transcriptPath) return plural(t.stats.activePrompts, 'prompt') + (t.stats.deadPrompts ? ` · ${t.stats.deadPrompts} abandoned` : '');
  if (s.counts) return plural(s.counts.livePrompts, 'prompt') + (s.counts.abandonedPrompts ? ` · ${s.counts.abandonedPrompts} abandoned` : '');
  // The index's count of the live path (same definition), the rest of the file's prompts abandoned.
  if (typeof s.livePromptCount === 'number' && s.promptCount !== null) {
    const abandoned = s.promptCount - s.livePromptCount;
    return plural(s.livePromptCount, 'prompt') + (abandoned > 0 ? ` · ${abandoned} abandoned` : '');
  }
  return s.promptCount === null ? '? prompts' : plural(s.promptCount, 'prompt');
}
