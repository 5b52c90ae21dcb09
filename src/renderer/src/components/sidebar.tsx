import { useMemo } from 'react';
import { sessionLabel } from '../session-label.js';
import { useStore } from '../store/store.js';
import { SessionRow } from './session-row.js';
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
  const names = useStore((s) => s.prefs.names);
  const byId = useMemo(() => new Map(sessions.map((s) => [s.id, s])), [sessions]);
  const groups = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const matchedSessions = new Set(matches.map((m) => m.transcriptPath));
    const match = (s: (typeof sessions)[number]) => {
      if (!q) return true;
      if (matchedSessions.has(s.transcriptPath)) return true;
      const hay = [names[s.id] ?? '', s.title, s.firstPrompt ?? '', s.lastPrompt ?? '', s.cwd ?? '', s.id];
      if (timeline && s.transcriptPath === timeline.session.transcriptPath) hay.push(...timeline.prompts.map((p) => p.text));
      return hay.some((h) => h.toLowerCase().includes(q));
    };
    const byProject = new Map<string, typeof sessions>();
    for (const s of sessions.filter(match)) {
      const key = s.cwd ?? s.projectDir;
      byProject.set(key, [...(byProject.get(key) ?? []), s]);
    }
    return [...byProject];
  }, [sessions, filter, timeline, matches, names]);
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
            <ul aria-label={`Sessions in ${project}`}>
              {list.map((s) => (
                <li key={s.transcriptPath}>
                  <SessionRow
                    session={s}
                    label={sessionLabel(s, names, byId)}
                    badge={s.agent !== agents[0]?.id ? (agents.find((a) => a.id === s.agent)?.badge ?? s.agent) : null}
                    selected={s.transcriptPath === selected}
                    now={now}
                    onSelect={select}
                  />
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
