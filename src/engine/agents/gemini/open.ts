import type { OpenMarker } from '../adapter.js';
import { agentProcessMarkers, argvNames } from '../agent-processes.js';
import type { ProcessInfo, ProcessTable } from '../../io/process-list.js';

/** `gemini` (the npm bin), `gemini.js` (the bundle it relaunches with `--max-old-space-size`). */
export const isGeminiArgv = (argv: string[]): boolean => argvNames(argv, ['gemini', 'gemini.js'], ['@google/gemini-cli']);

/**
 * Gemini CLI marks no open session (FORMATS.md §2d): a running `gemini` process working in a
 * folder, with its start time (the session it has open is the one there it last wrote since:
 * `attributeOpen`); `--resume <id>` names it exactly.
 */
export function geminiOpenSessions(source?: ProcessInfo[] | ProcessTable): Promise<OpenMarker[]> {
  const writer = (p: ProcessInfo) => p.argv.some((a) => a.startsWith('--max-old-space-size'));
  return Promise.resolve(agentProcessMarkers(isGeminiArgv, writer, source));
}
