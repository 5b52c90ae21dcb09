import { useStore } from '../store/store.js';

export function TimelineView() {
  const timeline = useStore((s) => s.timeline);
  const error = useStore((s) => s.timelineError);
  if (error) return <p className="empty">{error}</p>;
  if (!timeline) return <p className="empty">Pick a session.</p>;
  const { session, stats } = timeline;
  return (
    <section className="timeline" aria-label="Timeline">
      <header>
        <h1>{session.title}</h1>
        <p className="meta">
          Claude Code {session.version} · {session.cwd} · {stats.activePrompts} prompts
          {stats.deadPrompts ? ` · ${stats.deadPrompts} on dead branches` : ''}
        </p>
      </header>
      <ol className="prompts">
        {timeline.prompts.map((p) => (
          <li key={p.uuid} className={p.active ? 'live' : 'dead'} style={{ paddingLeft: `${p.lane * 24 + 8}px` }}>
            <span className="dot" aria-hidden>
              {p.active ? '●' : '○'}
            </span>
            <span className="num">{p.number ?? ''}</span>
            <span className="text">{p.text}</span>
            <span className="meta">{p.turn.toolCalls.length} tools</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
