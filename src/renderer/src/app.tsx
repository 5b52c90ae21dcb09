import { useEffect } from 'react';
import { SessionList } from './components/session-list.js';
import { TimelineView } from './components/timeline-view.js';
import { useStore } from './store/store.js';

export function App() {
  const loadSessions = useStore((s) => s.loadSessions);
  useEffect(() => {
    void loadSessions();
  }, [loadSessions]);
  return (
    <div className="app">
      <aside className="sidebar">
        <div className="brand">Rewind</div>
        <SessionList />
      </aside>
      <main className="content">
        <TimelineView />
      </main>
    </div>
  );
}
