import { useStore } from '../store/store.js';

/** No Claude data: say where we looked, how to point elsewhere, and offer the demo. */
export function EmptyState() {
  const root = useStore((s) => s.claudeRoot);
  const state = useStore((s) => s.rootState);
  const openDemo = useStore((s) => s.openDemo);
  const error = useStore((s) => s.sessionsError);
  return (
    <div className="empty-state">
      <div className="empty-card">
        <h1>No Claude Code sessions yet</h1>
        {error ? (
          <p className="error-text">{error}</p>
        ) : (
          <p>
            Rewind looked in <span className="mono">{root ?? '~/.claude'}</span>
            {state === 'missing' ? ', which does not exist.' : state === 'empty' ? ', which is an empty folder.' : ' and found no session transcripts in it.'}
          </p>
        )}
        <p>Sessions appear here as soon as you use Claude Code. To read another folder, start Rewind with <span className="mono">CLAUDE_CONFIG_DIR=/path/to/.claude</span> or <span className="mono">rewind-app --claude-dir /path</span>. Codex CLI sessions come from <span className="mono">$CODEX_HOME</span> or <span className="mono">~/.codex</span>.</p>
        <button type="button" className="button primary" onClick={() => void openDemo()}>
          Open the demo
        </button>
        <p className="small muted">The demo holds three real sessions (a linear one, one with an abandoned branch, one with a subagent and a compaction) in a scratch folder you can rewind freely.</p>
      </div>
    </div>
  );
}
