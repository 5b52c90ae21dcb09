import { displayRef } from '../../../shared/remote-ref.js';
import { useVirtualizer } from '@tanstack/react-virtual';
import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { describeCounts, timelineCounts } from '../../../shared/counts-wording.js';
import { plural } from '../format.js';
import { takeTimelineFocus } from '../keyboard.js';
import { useStore } from '../store/store.js';
import { HooksBanner } from './hooks-banner.js';
import { Legend } from './legend.js';
import { CostSummary } from './insight.js';
import { ROW_HEIGHT, TimelineRow } from './timeline-row.js';
import { useNow } from './use-now.js';
import { useOpenSessionLabel } from './use-session-label.js';
import { OpenBadge } from './open-badge.js';

// Shown only while a comparison is being picked: with compare and export, its own chunk.
const CompareBanner = lazy(() => import('./insight-actions.js').then((m) => ({ default: m.CompareBanner })));

export function TimelineView() {
  const timeline = useStore((s) => s.timeline);
  const agents = useStore((s) => s.agents);
  const layout = useStore((s) => s.layout);
  const error = useStore((s) => s.timelineError);
  const selected = useStore((s) => s.selectedPrompt);
  const selectPrompt = useStore((s) => s.selectPrompt);
  const openPreview = useStore((s) => s.openPreview);
  const openHistory = useStore((s) => s.openHistory);
  const toggleBranch = useStore((s) => s.toggleBranch);
  const openFold = useStore((s) => s.openFold);
  const jumpedFrom = useStore((s) => s.jumpedFrom);
  const comparing = useStore((s) => s.compareFrom !== null);
  const jumpBack = useStore((s) => s.jumpBack);
  const jumpToBranchPoint = useStore((s) => s.jumpToBranchPoint);
  const live = useStore((s) => s.sessions.some((x) => x.transcriptPath === s.timeline?.session.transcriptPath && x.live));
  const now = useNow();
  const label = useOpenSessionLabel();
  const scroller = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const rows = layout?.rows ?? [];
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const sessionPath = timeline?.session.transcriptPath;

  // Newest at the bottom: open there, and follow new prompts unless the user scrolled away. Only a
  // new prompt follows: expanding or collapsing a branch changes the row count but keeps the scroll.
  const promptCount = timeline?.prompts.length ?? 0;
  useEffect(() => {
    stickToBottom.current = true;
  }, [sessionPath]);
  useLayoutEffect(() => {
    if (stickToBottom.current && promptCount) toBottom(scroller.current);
  }, [promptCount, sessionPath]);
  // The list's height changes when a banner or the live mark comes and goes: still at the bottom.
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => stickToBottom.current && toBottom(el));
    ro.observe(el);
    return () => ro.disconnect();
  }, [layout !== null]);
  // Only a new selection scrolls (a relayout keeps the rows where they are on screen).
  const scrolledTo = useRef<string | null>(null);
  useLayoutEffect(() => {
    if (!selected) scrolledTo.current = null;
    const i = layout?.indexOf.get(selected ?? '');
    if (i === undefined || selected === scrolledTo.current) return;
    scrolledTo.current = selected;
    if (scroller.current) revealRow(scroller.current, i);
  }, [selected, layout]);
  // The live number of each prompt, for "from #n" on abandoned rows.
  const numberOf = useMemo(() => new Map((timeline?.prompts ?? []).map((p) => [p.uuid, p.number])), [timeline]);
  const branchPointOf = useCallback(
    (r: (typeof rows)[number]) => {
      if (r.kind !== 'prompt' || !r.branch || !layout) return null;
      const bp = layout.branches.get(r.branch)?.branchPoint;
      return bp ? (numberOf.get(bp) ?? null) : null;
    },
    [layout, numberOf],
  );
  const onJump = useCallback(
    (uuid: string) => {
      useStore.getState().selectPrompt(uuid);
      jumpToBranchPoint();
    },
    [jumpToBranchPoint],
  );
  useEffect(() => {
    if (layout && takeTimelineFocus()) scroller.current?.focus({ preventScroll: true });
  }, [layout]);
  useEffect(() => {
    if (!layout) return;
    requestAnimationFrame(() => {
      if (performance.getEntriesByName('rewind:timeline-data').length) performance.measure('rewind:timeline-render', 'rewind:timeline-data');
    });
  }, [layout]);
  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (el) stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < ROW_HEIGHT;
  }, []);
  const onOpen = useCallback((uuid: string) => void openPreview('fork', uuid), [openPreview]);

  if (error) return <p className="empty-inline">{error}</p>;
  if (!timeline || !layout) return <TimelineSkeleton />;
  const { session } = timeline;
  const activeId = layout.indexOf.has(selected ?? '') ? rowId(selected!) : undefined;
  return (
    <section className="timeline" aria-label="Timeline">
      <header className="timeline-header">
        <h1 title={label?.hover ?? session.title}>{label?.text ?? session.title}</h1>
        <p className="muted">
          {agents.find((a) => a.id === session.agent)?.displayName ?? session.agent} {session.version ?? ''} · <span className="mono">{session.cwd ? displayRef(session.cwd) : 'unknown folder'}</span>
        </p>
        <p className="stats">
          <span className="wg-counts">{describeCounts(timelineCounts(timeline))}</span>
          {timeline.compactions.length > 0 && <span>{plural(timeline.compactions.length, 'compaction')}</span>}
          {timeline.subagents.length > 0 && <span>{plural(timeline.subagents.length, 'subagent run')}</span>}
          <CostSummary />
          <OpenBadge open={session.open} />
          {live && (
            <span className="live" title="The agent wrote to this session in the last few seconds">
              <span className="live-dot" aria-hidden /> live
            </span>
          )}
        </p>
        <div className="header-tools">
          <button type="button" className="header-tool" title="Every fork, rewrite, restore and revert in this project, and their undo (H)" disabled={!session.cwd} onClick={() => void openHistory()}>
            History <kbd>H</kbd>
          </button>
          <Legend />
        </div>
      </header>
      {agents.find((a) => a.id === session.agent)?.hooks && <HooksBanner />}
      {comparing && (
        <Suspense fallback={null}>
          <CompareBanner />
        </Suspense>
      )}
      {jumpedFrom && (
        <div className="wg-jumpbar">
          <button type="button" className="button" onClick={jumpBack}>
            ↩ Back to the abandoned branch <kbd>Backspace</kbd>
          </button>
        </div>
      )}
      <div className="rows" id="timeline-rows" ref={scroller} onScroll={onScroll} role="listbox" aria-label="Prompts" tabIndex={0} aria-activedescendant={activeId}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => (
            <div key={rows[v.index]!.key} style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}>
              <TimelineRow
                layout={layout}
                index={v.index}
                row={rows[v.index]!}
                selected={rows[v.index]!.key === selected}
                now={now}
                onSelect={selectPrompt}
                onOpen={onOpen}
                onToggleBranch={toggleBranch}
                onOpenFold={openFold}
                branchPointNumber={branchPointOf(rows[v.index]!)}
                onJumpToBranchPoint={onJump}
              />
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}

const SKELETON_WIDTHS = [62, 48, 71, 55, 66, 40, 58, 69, 45, 52];

/** While a session opens (or a fork is read): the shape of a timeline, so the pane is never blank. */
function TimelineSkeleton() {
  const selected = useStore((s) => s.selectedSession);
  if (!selected) return <div className="timeline-skeleton" />;
  return (
    <section className="timeline timeline-skeleton" aria-busy="true" aria-label="Opening the session">
      <div className="timeline-header">
        <div className="sk-bar" style={{ width: '45%', height: 18 }} />
        <div className="sk-bar" style={{ width: '30%', marginTop: 8 }} />
        <div className="sk-bar" style={{ width: '22%', marginTop: 6 }} />
      </div>
      <p className="sr-only" role="status">
        Opening the session…
      </p>
      <div className="rows sk-rows" aria-hidden>
        {SKELETON_WIDTHS.map((w, i) => (
          <div key={i} className="sk-row">
            <span className="sk-dot" />
            <span className="sk-bar" style={{ width: 24 }} />
            <span className="sk-bar" style={{ width: `${w}%` }} />
          </div>
        ))}
      </div>
    </section>
  );
}

/** Scrolls to the very end (the last row whole, its padding below it). */
function toBottom(el: HTMLElement | null): void {
  if (el) el.scrollTop = el.scrollHeight;
}

/**
 * Brings row `i` into view with a margin of rows past it (so holding j shows what comes next), the
 * margin at most a third of the list; a row already clear of the edges does not move the list.
 */
function revealRow(el: HTMLElement, i: number): void {
  const pad = parseFloat(getComputedStyle(el).paddingTop) || 0;
  const top = pad + i * ROW_HEIGHT;
  const margin = Math.min(ROW_HEIGHT * 1.5, Math.max(0, (el.clientHeight - ROW_HEIGHT) / 3));
  if (top - margin < el.scrollTop) el.scrollTop = Math.max(0, top - margin);
  else if (top + ROW_HEIGHT + margin > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT + margin - el.clientHeight;
}

/** The DOM id of a row (prompt rows keep their historical `prompt-<uuid>` id). */
export function rowId(key: string): string {
  return key.includes(':') ? `row-${key.replace(':', '-')}` : `prompt-${key}`;
}
