import { useEffect } from 'react';
import { getApi } from './api/client.js';
import { EmptyState } from './components/empty-state.js';
import { CompareSheet } from './components/insight.js';
import { PreviewSheet } from './components/preview-sheet.js';
import { PromptDetail } from './components/prompt-detail.js';
import { ResultBar } from './components/result-bar.js';
import { Sidebar } from './components/sidebar.js';
import { TimelineView } from './components/timeline-view.js';
import { useKeyboard } from './keyboard.js';
import { Palette } from './components/palette.js';
import { useStore } from './store/store.js';

function useLiveEvents() {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    return getApi().onEvent((e) => {
      const s = useStore.getState();
      if (e.type === 'timelineChanged') s.applyEvent(e);
      else if (e.type === 'sessionsChanged') {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => void useStore.getState().loadSessions(), 150);
      }
    });
  }, []);
}

export function App() {
  const loadSessions = useStore((s) => s.loadSessions);
  const loaded = useStore((s) => s.sessionsLoaded);
  const empty = useStore((s) => s.sessions.length === 0);
  useKeyboard();
  useLiveEvents();
  useEffect(() => {
    void loadSessions();
  }, [loadSessions]);
  return (
    <div className="app" data-ready={loaded ? 'true' : 'false'}>
      <Sidebar />
      {loaded && empty ? (
        <EmptyState />
      ) : (
        <main className="main">
          <TimelineView />
          <PromptDetail />
        </main>
      )}
      <ResultBar />
      <PreviewSheet />
      <CompareSheet />
      <Palette />
    </div>
  );
}
