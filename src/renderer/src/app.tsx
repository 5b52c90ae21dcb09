import { lazy, Suspense, useEffect, useState } from 'react';
import { getApi } from './api/client.js';
import { ActionStrip } from './components/action-strip.js';
import { PromptDetail } from './components/prompt-detail.js';
import { Sidebar } from './components/sidebar.js';
import { TimelineView } from './components/timeline-view.js';
import { useKeyboard } from './keyboard.js';
import { useOpenSessionLabel } from './components/use-session-label.js';
import { useStore } from './store/store.js';
import { fromTerminalTitle } from '../../shared/wording.js';

// Not on the first screen: their own chunks, fetched once the list is shown (or when first asked for).
const PreviewSheet = lazy(() => import('./components/preview-sheet.js').then((m) => ({ default: m.PreviewSheet })));
const CompareSheet = lazy(() => import('./components/compare-sheet.js').then((m) => ({ default: m.CompareSheet })));
const RevertSheet = lazy(() => import('./components/revert-sheet.js').then((m) => ({ default: m.RevertSheet })));
const HooksSheet = lazy(() => import('./components/hooks-sheet.js').then((m) => ({ default: m.HooksSheet })));
const UndoSheet = lazy(() => import('./components/undo-sheet.js').then((m) => ({ default: m.UndoSheet })));
// Only where no agent has a session yet (a first run): its own chunk.
const EmptyState = lazy(() => import('./components/empty-state.js').then((m) => ({ default: m.EmptyState })));
// Fetched once the first screen is up (or at once when Ctrl/Cmd-K comes first): typed into the moment it opens.
const Palette = lazy(() => import('./components/palette.js').then((m) => ({ default: m.Palette })));
// After an action (or a command typed in a terminal): not on the first screen.
const ResultBar = lazy(() => import('./components/result-bar.js').then((m) => ({ default: m.ResultBar })));
const HistoryPanel = lazy(() => import('./components/history-panel.js').then((m) => ({ default: m.HistoryPanel })));

/** True once the first screen is up and the browser is idle: the deferred parts mount then. */
function useAfterFirstScreen(ready: boolean): boolean {
  const [after, setAfter] = useState(false);
  useEffect(() => {
    if (!ready || after) return;
    const idle = window.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 200));
    const cancel = window.cancelIdleCallback ?? clearTimeout;
    const id = idle(() => setAfter(true), { timeout: 1500 });
    return () => cancel(id as number);
  }, [ready, after]);
  return after;
}

function useLiveEvents() {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    return getApi().onEvent((e) => {
      const s = useStore.getState();
      if (e.type === 'timelineChanged') s.applyEvent(e);
      else if (e.type === 'sessionUpdated') s.patchSession(e.session);
      else if (e.type === 'remoteStatus') s.patchRemote(e.host);
      // A restore killed half-way was finished or rolled back when its project was opened, or a command
      // typed in a terminal was performed here (the in-app runner's `cli-` ids): say so in the result bar.
      else if (e.type === 'operationFinished' && (e.operation === 'recover' || e.id.startsWith('cli-')))
        useStore.setState({ result: { title: e.operation === 'recover' ? e.summary : fromTerminalTitle(e), forkSessionId: null, resumeCommand: null, handedBack: [], projectRoot: null, undoable: false, undone: null, error: null, sourceSession: s.selectedSession ?? '', promptUuid: '' } });
      else if (e.type === 'sessionsChanged') {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => void useStore.getState().loadSessions(), 150);
      }
    });
  }, []);
}

const NARROW = '(max-width: 1000px)';

/** True when the layout is the narrow one (styles.css uses the same query): drawers instead of columns. */
function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
  useEffect(() => {
    const mq = window.matchMedia(NARROW);
    const on = () => setNarrow(mq.matches);
    mq.addEventListener('change', on);
    return () => mq.removeEventListener('change', on);
  }, []);
  return narrow;
}

function closeDrawers() {
  const s = useStore.getState();
  s.setSidebarOpen(false);
  s.setDetailsOpen(false);
}

/** Narrow layouts: the sessions and details toggles, and the session's name. */
function TopBar() {
  const sidebarOpen = useStore((s) => s.sidebarOpen);
  const detailsOpen = useStore((s) => s.detailsOpen);
  const setSidebarOpen = useStore((s) => s.setSidebarOpen);
  const setDetailsOpen = useStore((s) => s.setDetailsOpen);
  const label = useOpenSessionLabel();
  const title = label?.text ?? 'Rewind';
  const hasPrompt = useStore((s) => !!s.selectedPrompt);
  return (
    <header className="topbar">
      <button type="button" className="button small" aria-expanded={sidebarOpen} onClick={() => setSidebarOpen(!sidebarOpen)}>
        ☰ Sessions
      </button>
      <span className="topbar-title" title={label?.hover ?? title}>
        {title}
      </span>
      <button type="button" className="button small" aria-expanded={detailsOpen} disabled={!hasPrompt} onClick={() => setDetailsOpen(!detailsOpen)}>
        Details ▸
      </button>
    </header>
  );
}

export function App() {
  const loadSessions = useStore((s) => s.loadSessions);
  const loaded = useStore((s) => s.sessionsLoaded);
  const empty = useStore((s) => s.sessions.length === 0);
  useKeyboard();
  useLiveEvents();
  useEffect(() => {
    void loadSessions();
    void useStore.getState().loadRemotes();
  }, [loadSessions]);
  const loadPrefs = useStore((s) => s.loadPrefs);
  const narrow = useNarrow();
  const sidebarOpen = useStore((s) => s.sidebarOpen);
  const detailsOpen = useStore((s) => s.detailsOpen);
  const session = useStore((s) => s.selectedSession);
  useEffect(() => {
    void loadPrefs();
  }, [loadPrefs]);
  // Narrow: picking a session closes the sessions drawer.
  useEffect(() => closeDrawers(), [session]);
  useEffect(() => {
    if (!narrow) closeDrawers();
  }, [narrow]);
  const drawer = narrow && (sidebarOpen || detailsOpen);
  const later = useAfterFirstScreen(loaded);
  const previewOpen = useStore((s) => s.preview !== null);
  const compareOpen = useStore((s) => s.comparison !== null);
  const revertOpen = useStore((s) => s.revert !== null);
  const historyOpen = useStore((s) => s.history !== null);
  const hooksOpen = useStore((s) => s.hooksSheetOpen);
  const undoOpen = useStore((s) => s.undoAsk !== null);
  const resultOpen = useStore((s) => s.result !== null);
  const paletteOpen = useStore((s) => s.palette !== null);
  // An opened drawer takes the focus (Esc or the backdrop closes it).
  useEffect(() => {
    if (narrow && detailsOpen) document.querySelector<HTMLElement>('.detail-slot')?.focus();
  }, [narrow, detailsOpen]);
  useEffect(() => {
    if (narrow && sidebarOpen) document.getElementById('session-filter')?.focus();
  }, [narrow, sidebarOpen]);
  return (
    <div className={`app${narrow ? ' narrow' : ''}${sidebarOpen ? ' sidebar-open' : ''}${detailsOpen ? ' details-open' : ''}`} data-ready={loaded ? 'true' : 'false'}>
      {narrow && <TopBar />}
      <Sidebar />
      {loaded && empty ? (
        <Suspense fallback={null}>
          <EmptyState />
        </Suspense>
      ) : (
        <main
          className="main"
          onClick={(e) => {
            // Narrow: picking a prompt opens its details.
            if (narrow && e.target instanceof Element && e.target.closest('.prompt-row')) useStore.getState().setDetailsOpen(true);
          }}
        >
          <TimelineView />
          {narrow && <ActionStrip />}
          <div className="detail-slot" role={narrow ? 'dialog' : undefined} aria-label={narrow ? 'Prompt details' : undefined} tabIndex={narrow ? -1 : undefined}>
            {narrow && (
              <div className="drawer-head">
                <strong>Details</strong>
                <button type="button" className="button ghost small" aria-label="Close details" onClick={closeDrawers}>
                  ✕
                </button>
              </div>
            )}
            <PromptDetail />
          </div>
        </main>
      )}
      {drawer && <button type="button" className="drawer-backdrop" aria-label="Close" tabIndex={-1} onClick={closeDrawers} />}
      <Suspense fallback={null}>
        {(later || resultOpen) && <ResultBar />}
        {(later || previewOpen) && <PreviewSheet />}
        {(later || compareOpen) && <CompareSheet />}
        {(later || revertOpen) && <RevertSheet />}
        {(later || historyOpen) && <HistoryPanel />}
        {hooksOpen && <HooksSheet />}
        {undoOpen && <UndoSheet />}
      </Suspense>
      <Suspense fallback={null}>{(later || paletteOpen) && <Palette />}</Suspense>
    </div>
  );
}
