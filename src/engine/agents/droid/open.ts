import type { OpenMarker } from '../adapter.js';
import { agentProcessMarkers, argvNames } from '../agent-processes.js';
import type { ProcessInfo, ProcessTable } from '../../io/process-list.js';

export const isDroidArgv = (argv: string[]): boolean => argvNames(argv, ['droid']);

/**
 * Droid marks no open session (FORMATS.md §2d): its TUI `droid [--resume <id>]` runs a child
 * `droid exec --input-format stream-jsonrpc` that writes the session, working in the project (the
 * session it has open: the one there it last wrote since it started, `attributeOpen`).
 */
export function droidOpenSessions(source?: ProcessInfo[] | ProcessTable): Promise<OpenMarker[]> {
  const writer = (p: ProcessInfo) => p.argv.includes('exec') && p.argv.includes('stream-jsonrpc');
  return Promise.resolve(agentProcessMarkers(isDroidArgv, writer, source));
}
