/**
 * How recently a session file was written for the agent to count as still writing it: shared by
 * every agent (the seam's own constant, so no agent's folder reaches into another's).
 */
/** The list's "live" dot: a session written this recently. */
export const LIVE_WINDOW_MS = 10_000;
/** An in-place rewrite of a session written this recently is refused without `force`. */
export const DEFAULT_LIVE_WINDOW_MS = 5_000;
