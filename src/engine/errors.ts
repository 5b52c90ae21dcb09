/**
 * Stable error codes: every failure that reaches a user carries one, so the CLI can map it to an
 * exit code and the UI to plain words without parsing messages.
 */
export const ERROR_CODES = [
  'USAGE',
  'NOT_FOUND',
  'NO_TRANSCRIPT',
  'NOT_ENOUGH_PROMPTS',
  'TRANSCRIPT_CHANGED',
  'TRANSCRIPT_LIVE',
  /** A running agent has the session open: never rewritten under it (no --force past this). */
  'SESSION_OPEN',
  'INVALID_TRANSCRIPT',
  'UNREADABLE',
  'CONFLICT',
  'UNSAFE_PATH',
  'NOTHING_TO_UNDO',
  'UNDO_MISMATCH',
  'NO_CHECKPOINT',
  'UNSUPPORTED',
  'IO',
  /** ssh could not reach a remote host, or the host's rewind-app is missing or incompatible. */
  'REMOTE',
  /** The user stopped a long read (an export) before it finished: nothing was written. */
  'CANCELLED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class RewindError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'RewindError';
  }
}

/** By shape, not by class: a second copy of this module (another bundle) still counts. */
export function isRewindError(e: unknown): e is RewindError {
  return e instanceof Error && e.name === 'RewindError' && (ERROR_CODES as readonly string[]).includes((e as RewindError).code);
}

/** One line for a person: a RewindError's message, or a short description of a system error. */
export function describeError(e: unknown): { code: ErrorCode; message: string } {
  if (isRewindError(e)) return { code: e.code, message: e.message };
  const err = e as NodeJS.ErrnoException | undefined;
  if (err && typeof err.code === 'string') {
    // A copy's error carries both paths: the destination is the one that failed to be written.
    const dest = (err as { dest?: string }).dest;
    const where = dest && err.code !== 'ENOENT' ? `: ${dest}` : err.path ? `: ${err.path}` : '';
    switch (err.code) {
      case 'ENOENT':
        return { code: 'NOT_FOUND', message: `not found${where}${dest ? ` (copying to ${dest})` : ''}` };
      case 'EACCES':
      case 'EPERM':
        return { code: 'UNREADABLE', message: `permission denied${where}` };
      case 'EISDIR':
        return { code: 'UNREADABLE', message: `is a directory${where}` };
      case 'ENOSPC':
        return { code: 'IO', message: `no space left on the device writing${where.slice(1)}` };
      case 'EDQUOT':
        return { code: 'IO', message: `disk quota exceeded writing${where.slice(1)}` };
      default:
        return { code: 'IO', message: `${err.code}${where}` };
    }
  }
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'INTERNAL', message: message.split('\n')[0] ?? 'unknown error' };
}
