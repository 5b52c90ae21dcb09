import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { SessionSummary, Timeline } from '../../../shared/session-schema.js';
import { firstLine, plural, relTime } from '../format.js';
import { sidebarItems, wholeWords, type SidebarItem } from '../sidebar-items.js';
import { useStore } from '../store/store.js';
import { Highlight } from './highlight.js';
import { useNow } from './use-now.js';

const HEIGHT: Record<SidebarItem['kind'], number> = { group: 34, session: 52, match: 26 };

export const sidebarItemId = (key: string) => `side-${key.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** The sidebar's rows as shown now (the keyboard walks the same list). */
export function useSidebarItems(): SidebarItem[] {
  const sessions = useStore((s) => s.sessions);
  const filter = useStore((s) => s.filter);
  const timeline = useStore((s) => s.timeline);
  const matches = useStore((s) => s.promptMatches);
  return useMemo(
    () => sidebarItems(sessions, filter, matches, (s) => (timeline && s.transcriptPath === timeline.session.transcriptPath ? timeline.prompts.map((p) => p.text) : [])),
    [sessions, filter, timeline, matches],
  );
}

export function Sidebar() {
  const items = useSidebarItems();
  const selected = useStore((s) => s.selectedSession);
  const cursor = useStore((s) => s.sidebarCursor);
  const pick = useStore((s) => s.pickSidebarItem);
  const filter = useStore((s) => s.filter);
  const setFilter = useStore((s) => s.setFilter);
  const matches = useStore((s) => s.promptMatches);
  const truncated = useStore((s) => s.promptMatchesTruncated);
  const demo = useStore((s) => s.demo);
  const agents = useStore((s) => s.agents);
  const timeline = useStore((s) => s.timeline);
  const now = useNow();
  const scroller = useRef<HTMLElement>(null);
  const virtualizer = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: (i) => HEIGHT[items[i]!.kind], overscan: 8 });
  const active = cursor ?? selected;
  const activeIndex = items.findIndex((x) => x.key === active);
  useEffect(() => {
    if (activeIndex !== -1) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [activeIndex, virtualizer]);
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
        {q && (
          <p className="wg-filter-count" role="status">
            {matches.length > 0 ? `${plural(matches.length, 'prompt')}${truncated ? '+' : ''} in ` : ''}
            {plural(sessionsShown, 'session')}
            {q.length >= 2 ? '' : ' (type 2 letters to search prompts)'}
          </p>
        )}
      </div>
      <nav className="session-groups" ref={scroller} role="listbox" tabIndex={0} aria-label="Sessions" aria-activedescendant={activeIndex !== -1 ? sidebarItemId(active!) : undefined}>
        {items.length === 0 && <p className="muted pad">{filter ? 'No session matches.' : 'No sessions yet.'}</p>}
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const it = items[v.index]!;
            const style = { position: 'absolute' as const, top: 0, left: 0, right: 0, height: HEIGHT[it.kind], transform: `translateY(${v.start}px)` };
            if (it.kind === 'group')
              return (
                <h2 key={it.key} className="wg-group" style={style} title={it.project} role="presentation">
                  {it.project.split('/').filter(Boolean).slice(-2).join('/') || it.project}
                </h2>
              );
            const isCursor = it.key === active;
            if (it.kind === 'match')
              return (
                <div key={it.key} id={sidebarItemId(it.key)} role="option" aria-selected={isCursor} style={style} className={`match${isCursor ? ' wg-cursor' : ''}`} onClick={() => pick(it.key)}>
                  <Highlight text={wholeWords(it.match.snippet)} query={q} />
                </div>
              );
            const s = it.session;
            return (
              <div
                key={it.key}
                id={sidebarItemId(it.key)}
                role="option"
                aria-selected={s.transcriptPath === selected}
                style={style}
                data-project={s.cwd ?? s.projectDir}
                className={`session${s.transcriptPath === selected ? ' selected' : ''}${isCursor ? ' wg-cursor' : ''}`}
                onClick={() => pick(it.key)}
                title={s.title}
              >
                <span className="session-title">
                  {s.live && <span className="live-dot" aria-label="agent is writing" />}
                  <span className="wg-title-text">
                    <Highlight text={firstLine(s.title, 80)} query={q} />
                  </span>
                </span>
                <span className="session-meta">
                  {s.agent !== agents[0]?.id && <span className="agent-tag">{agents.find((a) => a.id === s.agent)?.badge ?? s.agent} · </span>}
                  {s.forkOf && (
                    <span className="fork-tag" title={`Forked from ${s.forkOf}`}>
                      fork of {s.forkOf.slice(0, 8)} ·{' '}
                    </span>
                  )}
                  {relTime(s.lastActivity, now)} · {promptsLabel(s, timeline)}
                </span>
              </div>
            );
          })}
        </div>
      </nav>
    </aside>
  );
}

/**
 * The same count as the timeline header: prompts on the live path (from the open timeline, or the
 * summary's counts); a summary that has not parsed the session says how many prompts the file holds.
 */
function promptsLabel(s: SessionSummary, t: Timeline | null): string {
  if (t && t.session.transcriptPath === s.transcriptPath) return plural(t.stats.activePrompts, 'prompt') + (t.stats.deadPrompts ? ` · ${t.stats.deadPrompts} abandoned` : '');
  if (s.counts) return plural(s.counts.livePrompts, 'prompt') + (s.counts.abandonedPrompts ? ` · ${s.counts.abandonedPrompts} abandoned` : '');
  return s.promptCount === null ? '? prompts' : plural(s.promptCount, 'prompt');
}
