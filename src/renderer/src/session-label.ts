import type { SessionSummary } from '../../shared/session-schema.js';
import { firstLine } from './format.js';

export interface SessionLabel {
  /** What the row shows: the user's name, else "↳ fork at #n of …" for a fork, else the session's title. */
  text: string;
  /** The hover: the full title, and where a fork came from. */
  hover: string;
  named: boolean;
}

/** How a session is called in the window; `byId` holds the listed sessions (a fork's original may be among them). */
export function sessionLabel(s: SessionSummary, names: Record<string, string>, byId: ReadonlyMap<string, SessionSummary>): SessionLabel {
  const name = names[s.id];
  const origin = s.forkOf ? byId.get(s.forkOf) : undefined;
  const originTitle = s.forkOf ? (origin ? (names[origin.id] ?? firstLine(origin.title, 200)) : s.forkOf.slice(0, 8)) : null;
  const forkNote = s.forkOf ? `Forked from ${originTitle} (${s.forkOf})` : null;
  const at = s.forkAt ? ` at #${s.forkAt}` : '';
  const text = name ?? (originTitle !== null ? `↳ fork${at} of ${originTitle}` : firstLine(s.title, 200));
  return { text, hover: [text, name ? s.title : null, forkNote].filter((x, i, all) => x && all.indexOf(x) === i).join('\n'), named: !!name };
}
