/**
 * Rewind's writer for Gemini sessions (./rewind.ts) is unit-tested, but the real CLI does not yet
 * confirm it: a resume repeats the last function response in the history it sends (an untouched
 * session does it too), and resuming a fork once made the original's files disappear. Until the
 * conformance suite passes, Gemini sessions are shown, not written.
 */
export const GEMINI_READ_ONLY = 'Rewind shows Gemini CLI sessions but does not rewind them yet (its writes are not yet confirmed by the real Gemini CLI)';
