import { useStore } from '../store/store.js';

export function SessionList() {
  const sessions = useStore((s) => s.sessions);
  const selected = useStore((s) => s.selectedSession);
  const select = useStore((s) => s.selectSession);
  const error = useStore((s) => s.sessionsError);
  if (error) return <p className="empty">{error}</p>;
  if (sessions.length === 0) return <p className="empty">No Claude Code sessions found.</p>;
  return (
    <ul className="session-list" aria-label="Sessions">
      {sessions.map((s) => (
        <li key={s.transcriptPath}>
          <button type="button" className={s.transcriptPath === selected ? 'selected' : ''} onClick={() => select(s.transcriptPath)}>
            <span className="title">{s.title}</span>
            <span className="meta">
              {s.live ? '● ' : ''}
              {s.promptCount ?? '?'} prompts · {s.cwd ?? s.projectDir}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
