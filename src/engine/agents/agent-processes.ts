import { basename } from 'node:path';
import { processTable, type ProcessInfo, type ProcessTable } from '../io/process-list.js';
import type { OpenMarker } from './adapter.js';

/** The value after `flag` in argv (`--resume <id>`), or of `flag=<v>`. */
export function argValue(argv: string[], flag: string): string | null {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === flag) return argv[i + 1] ?? null;
    if (argv[i]!.startsWith(`${flag}=`)) return argv[i]!.slice(flag.length + 1);
  }
  return null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Open sessions of an agent that leaves no marker (Gemini CLI, Droid: FORMATS.md §2d): its running
 * processes (argv `isAgent`) and their working folders. Of a launcher and the child it started, the
 * child (`isWriter`, else the deepest) is the one reported; the session id only when an argv says
 * `--resume <uuid>`; `since`: when the process started (which session it has open is decided from
 * that: `attributeOpen`). `source`: the processes, or one look at the machine to ask.
 */
export function agentProcessMarkers(isAgent: (argv: string[]) => boolean, isWriter: (p: ProcessInfo) => boolean, source: ProcessInfo[] | ProcessTable = processTable()): OpenMarker[] {
  const all = Array.isArray(source) ? source : source.matching(isAgent);
  const pids = new Set(all.map((p) => p.pid));
  const byPid = new Map(all.map((p) => [p.pid, p]));
  const out: OpenMarker[] = [];
  for (const p of all) {
    // A launcher whose child is also listed: reported through the child.
    if (!isWriter(p) && all.some((c) => c.ppid === p.pid)) continue;
    if (p.ppid !== null && pids.has(p.ppid) && !isWriter(p) && isWriter(byPid.get(p.ppid)!)) continue;
    let id: string | null = null;
    for (let q: ProcessInfo | undefined = p; q && !id; q = q.ppid !== null ? byPid.get(q.ppid) : undefined) {
      const v = argValue(q.argv, '--resume');
      if (v && UUID.test(v)) id = v;
    }
    out.push({ sessionId: id, cwd: p.cwd, pid: p.pid, status: 'unknown', since: typeof p.startedAt === 'number' ? new Date(p.startedAt).toISOString() : null });
  }
  return out;
}

/** Does any argv element name this program (its file, with or without `.js`, or its package folder)? */
export function argvNames(argv: string[], names: string[], packages: string[] = []): boolean {
  return argv.slice(0, 3).some((a) => names.includes(basename(a)) || packages.some((pk) => a.includes(pk)));
}
