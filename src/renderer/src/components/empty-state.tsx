import { useStore } from '../store/store.js';

/** No session of any agent: say where we looked, how to point elsewhere, and offer the demo. */
export function EmptyState() {
  const root = useStore((s) => s.claudeRoot);
  const state = useStore((s) => s.rootState);
  const openDemo = useStore((s) => s.openDemo);
  const error = useStore((s) => s.sessionsError);
  const agents = useStore((s) => s.agents);
  const names = agents.map((a) => a.displayName);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : (names[0] ?? 'your coding agents');
  return (
    <div className="empty-state">
      <div className="empty-card">
        <h1>No sessions yet</h1>
        <p>
          Rewind reads the sessions of <span className="empty-agents">{list}</span>, each from the folder its CLI keeps them in.
        </p>
        {error ? (
          <p className="error-text">{error}</p>
        ) : (
          <p>
            Rewind looked in <span className="mono">{root ?? '~/.claude'}</span>
            {state === 'missing' ? ', which does not exist.' : state === 'empty' ? ', which is an empty folder.' : ' and found no session transcripts in it.'}
          </p>
        )}
        <p>Sessions appear here as soon as you use one of them. To read another folder for {names[0] ?? 'the first agent'}, start Rewind with <span className="mono">rewind-app --claude-dir /path</span>; each agent's own variable (its home folder) works too.</p>
        <button type="button" className="button primary" onClick={() => void openDemo()}>
          Open the demo
        </button>
        <p className="small muted">The demo holds three real sessions (a linear one, one with an abandoned branch, one with a subagent and a compaction) in a scratch folder you can rewind freely.</p>
      </div>
    </div>
  );
}
