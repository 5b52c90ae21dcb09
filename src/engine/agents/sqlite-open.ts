import { readdirSync, readlinkSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { OpenMarker } from './adapter.js';
import { argValue, argvNames } from './agent-processes.js';
import { processesMatching, type ProcessInfo } from '../io/process-list.js';

/**
 * Open sessions of an OpenCode-style agent (OpenCode, Kilo; FORMATS.md §2d). Measured with
 * OpenCode 1.18.33 and Kilo 7.7.7: the TUI, `run` and `serve` leave no marker of their own (no lock
 * or pid file; `state/<cli>/locks/` stays empty, the TUI listens on no port) and every one of them
 * holds the store (`<cli>.db`, its `-wal` and `-shm`) open for as long as it runs. So: a running
 * process of the CLI, known by its argv, that holds this store open (Linux: its open files; where
 * they cannot be read, every such process), working in its folder. `-s/--session <id>` names the
 * session; the TUI without it has its folder's newest session open (or the one picked in it), as
 * the other process-only agents. A `run` is mid-turn by nature (busy); the TUI's state is not known.
 * The `serve` Rewind itself starts for a rewind (`serve --hostname 127.0.0.1 --port 0 --pure`) is
 * not the user's.
 */

/** Subcommands that open no session (the rest: the TUI with an optional folder, run, serve, web, attach, acp). */
const NO_SESSION = new Set(['completion', 'mcp', 'debug', 'auth', 'providers', 'agent', 'upgrade', 'uninstall', 'models', 'stats', 'export', 'import', 'github', 'pr', 'session', 'plugin', 'db', 'help', '--help', '-h', '--version', '-v']);

const isRewindServe = (args: string[]) => args[0] === 'serve' && args.includes('--pure') && argValue(args, '--port') === '0';

/** The CLI's own arguments (after its program, or after `node <launcher>`); null when argv is not the CLI. */
function cliArgs(argv: string[], command: string): string[] | null {
  const is = (a: string | undefined) => a !== undefined && (basename(a) === command || basename(a) === `${command}.exe`);
  if (is(argv[0])) return argv.slice(1);
  // A launcher script run by its interpreter (`node .../bin/<cli>`, a shell wrapper).
  if (/^(node|nodejs|bun|sh|bash|dash)(\.exe)?$/.test(basename(argv[0] ?? '')) && is(argv[1])) return argv.slice(2);
  return null;
}

/** Does the process hold the store open? Null when its open files cannot be read (not Linux, another user's). */
export function holdsFile(pid: number, file: string): boolean | null {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return null;
  }
  const want = resolve(file);
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === want) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/** The markers of one agent's processes (pure but for `holds`): one per process holding the store, the launcher left out. */
export function storeProcessMarkers(command: string, all: ProcessInfo[], holds: (pid: number) => boolean | null): OpenMarker[] {
  const out: OpenMarker[] = [];
  const candidates = all.filter((p) => {
    const args = cliArgs(p.argv, command);
    return args !== null && !NO_SESSION.has(args[0] ?? '') && !isRewindServe(args);
  });
  for (const p of candidates) {
    const held = holds(p.pid);
    if (held === false) continue;
    // Where open files cannot be read: a launcher (`node .../bin/<cli>`) whose child is listed is reported through it.
    if (held === null && candidates.some((c) => c.ppid === p.pid)) continue;
    const args = cliArgs(p.argv, command)!;
    const id = argValue(args, '--session') ?? argValue(args, '-s');
    const fork = args.includes('--fork');
    out.push({ sessionId: id && /^ses_[A-Za-z0-9]+$/.test(id) && !fork ? id : null, cwd: p.cwd, pid: p.pid, status: args[0] === 'run' ? 'busy' : 'unknown', since: null });
  }
  return out;
}

/** The sessions of the store `db` a running CLI `command` has open. */
export function storeOpenSessions(command: string, db: string, all?: ProcessInfo[]): Promise<OpenMarker[]> {
  const procs = all ?? processesMatching((argv) => argvNames(argv, [command, `${command}.exe`]));
  return Promise.resolve(storeProcessMarkers(command, procs, (pid) => holdsFile(pid, db)));
}
