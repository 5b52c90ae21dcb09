import { useMemo } from 'react';
import { sessionLabel, type SessionLabel } from '../session-label.js';
import { useStore } from '../store/store.js';

/** The label of the open session, as the sidebar shows it (the user's name, or "↳ fork of …"). */
export function useOpenSessionLabel(): SessionLabel | null {
  const sessions = useStore((s) => s.sessions);
  const names = useStore((s) => s.prefs.names);
  const path = useStore((s) => s.timeline?.session.transcriptPath ?? null);
  return useMemo(() => {
    const s = sessions.find((x) => x.transcriptPath === path);
    return s ? sessionLabel(s, names, new Map(sessions.map((x) => [x.id, x]))) : null;
  }, [sessions, names, path]);
}
