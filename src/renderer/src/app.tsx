import { useEffect } from 'react';
import { getApi } from './api/client.js';
import { EmptyState } from './components/empty-state.js';
import { CompareSheet } from './components/insight.js';
import { PreviewSheet } from './components/preview-sheet.js';
import { PromptDetail } from './components/prompt-detail.js';
import { ResultBar } from './components/result-bar.js';
import { Sidebar } from './components/sidebar.js';
import { TimelineView } from './components/timeline-view.js';
import { useStore } from './store/store.js';

function useKeyboard() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const s = useStore.getState();
      const typing = e.target instanceof HTMLElement && (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA');
      if (e.key === 'Escape') {
        if (s.preview) s.closePreview();
        else if (typing) (e.target as HTMLElement).blur();
        return;
      }
      if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === '/') {
        e.preventDefault();
        document.getElementById('session-filter')?.focus();
      } else if (s.preview) {
        return;
      } else if (e.key === 'ArrowDown' || e.key === 'j') {
        e.preventDefault();
        s.moveSelection(1);
      } else if (e.key === 'ArrowUp' || e.key === 'k') {
        e.preventDefault();
        s.moveSelection(-1);
      } else if (e.key === 'Enter' && s.selectedPrompt) {
        e.preventDefault();
        void s.openPreview('fork');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

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
    </div>
  );
}
