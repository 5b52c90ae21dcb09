import type { ErrorCode } from '../engine/errors.js';

/** Stable exit codes: scripts and the app's forwarder rely on them. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  notEnoughPrompts: 3,
  /** `search` found nothing (like grep's 1, but 1 is our error). */
  noMatch: 3,
  noTranscript: 4,
  changedOrLive: 5,
  conflict: 6,
} as const;

export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'USAGE':
      return EXIT.usage;
    case 'NOT_ENOUGH_PROMPTS':
      return EXIT.notEnoughPrompts;
    case 'NO_TRANSCRIPT':
      return EXIT.noTranscript;
    case 'TRANSCRIPT_CHANGED':
    case 'TRANSCRIPT_LIVE':
    case 'SESSION_OPEN':
      return EXIT.changedOrLive;
    case 'CONFLICT':
      return EXIT.conflict;
    default:
      return EXIT.error;
  }
}
