import { join } from 'node:path';
import type { OpenMarker } from '../adapter.js';
import { livePidRecords, markerString, pidRecordOf, type PidRecord } from '../open-markers.js';

/**
 * Claude Code's record of a running TUI, `$CLAUDE_CONFIG_DIR/sessions/<pid>.json` (FORMATS.md §2d):
 * `sessionId`, `status` busy/idle, `procStart` (Linux: `/proc/<pid>/stat` field 22; macOS:
 * `ps -o lstart=`), `pidDomain`. Null when the text is not such a record.
 */
export function parseClaudeMarker(text: string): PidRecord | null {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    return null;
  }
  const base = pidRecordOf(o);
  if (!base) return null;
  const r = o as Record<string, unknown>;
  const status = r.status === 'busy' ? 'busy' : r.status === 'idle' ? 'idle' : 'unknown';
  return { ...base, procStart: markerString(r.procStart), pidDomain: markerString(r.pidDomain), status };
}

/** The sessions open in a live Claude Code under its config root (crashed TUIs' markers left out). */
export function claudeOpenSessions(root: string): Promise<OpenMarker[]> {
  return livePidRecords(join(root, 'sessions'), parseClaudeMarker);
}
