import { useMemo } from 'react';
import { firstLine, plural, relTime } from '../format.js';
import { useStore } from '../store/store.js';
import { useNow } from './use-now.js';

export function Sidebar() {
  const sessions = useStore((s) => s.sessions);
  const agents = useStore((s) => s.agents);
  const selected = useStore((s) => s.selectedSession);
  const select = useStore((s) => s.selectSession);
  const filter = useStore((s) => s.filter);
  const setFilter = useStore((s) => s.setFilter);
  const timeline = useStore((s) => s.timeline);
  const matches = useStore((s) => s.promptMatches);
  const selectPrompt = useStore((s) => s.selectPrompt);
  const demo = useStore((s) => s.demo);
  const now = useNow();
  const groups = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const matchedSessions = new Set(matches.map((m) => m.transcriptPath));
    const match = (s: (typeof sessions)[number]) => {
      if (!q) return true;
      if (matchedSessions.has(s.transcriptPath)) return true;
      const hay = [s.title, s.firstPrompt ?? '', s.lastPrompt ?? '', s.cwd ?? '', s.id];
      if (timeline && s.transcriptPath === timeline.session.transcriptPath) hay.push(...timeline.prompts.map((p) => p.text));
      return hay.some((h) => h.toLowerCase().includes(q));
    };
    const byProject = new Map<string, typeof sessions>();
    for (const s of sessions.filter(match)) {
      const key = s.cwd ?? s.projectDir;
      byProject.set(key, [...(byProject.get(key) ?? []), s]);
    }
    return [...byProject];
  }, [sessions, filter, timeline, matches]);
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
      </div>
      <nav className="session-groups">
        {groups.length === 0 && <p className="muted pad">{filter ? 'No session matches.' : 'No sessions yet.'}</p>}
        {groups.map(([project, list]) => (
          <section key={project} className="group">
            <h2 title={project}>{project.split('/').filter(Boolean).slice(-2).join('/') || project}</h2>
            <ul role="listbox" aria-label={`Sessions in ${project}`}>
              {list.map((s) => (
                <li key={s.transcriptPath} role="option" aria-selected={s.transcriptPath === selected}>
                  <button type="button" className={`session${s.transcriptPath === selected ? ' selected' : ''}`} onClick={() => select(s.transcriptPath)} title={s.title}>
                    <span className="session-title">
                      {s.live && <span className="live-dot" aria-label="agent is writing" />}
                      {firstLine(s.title, 60)}
                    </span>
                    <span className="session-meta">
                      {s.agent !== agents[0]?.id && <span className="agent-tag">{agents.find((a) => a.id === s.agent)?.badge ?? s.agent} · </span>}
                      {s.forkOf && (
                        <span className="fork-tag" title={`Forked from ${s.forkOf}`}>
                          fork of {s.forkOf.slice(0, 8)} ·{' '}
                        </span>
                      )}
                      {relTime(s.lastActivity, now)} · {s.promptCount === null ? '? prompts' : plural(s.promptCount, 'prompt')}
                    </span>
                  </button>
                  {filter.trim() &&
                    matches
                      .filter((m) => m.transcriptPath === s.transcriptPath)
                      .map((m) => (
                        <button
                          key={m.promptUuid}
                          type="button"
                          className="match"
                          onClick={() => {
                            select(s.transcriptPath);
                            selectPrompt(m.promptUuid);
                          }}
                        >
                          {m.snippet}
                        </button>
                      ))}
                </li>
              ))}
            </ul>
          </section>
        ))}
      </nav>
    </aside>
  );
}
