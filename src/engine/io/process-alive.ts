import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync, statSync } from 'node:fs';

/** Whether a process with this pid runs on this machine (EPERM: it does, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and parentheses,
 * so the split starts after the last ')'): index 0 is field 3 (state), so field n is `[n - 3]`.
 */
export function statFields(text: string): string[] | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  return text.slice(close + 2).trim().split(/\s+/);
}

function procStat(pid: number): string[] | null {
  try {
    return statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * A process's start time as the agents record it, so a pid reused by another process is told
 * apart: Linux, field 22 of `/proc/<pid>/stat` (clock ticks since boot, as Claude Code and Qwen
 * Code write it); macOS, `ps -o lstart=` in C locale and UTC (Claude Code's own reading there).
 * Null when it cannot be read (Windows: the agents record a FILETIME we do not read; gone pid).
 */
export function procStartOf(pid: number, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'linux') return procStat(pid)?.[19] ?? null;
  if (platform === 'darwin') {
    try {
      const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' }, encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
      return out.trim() || null;
    } catch {
      return null;
    }
  }
  return null;
}

/** The parent of a process (Linux `/proc`, else `ps`); null when unknown. */
export function parentPid(pid: number, platform: NodeJS.Platform = process.platform): number | null {
  if (platform === 'linux') {
    const p = Number(procStat(pid)?.[1]);
    return Number.isInteger(p) && p > 0 ? p : null;
  }
  if (platform === 'win32') return null;
  try {
    const p = Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return Number.isInteger(p) && p > 0 ? p : null;
  } catch {
    return null;
  }
}

/** This process and its ancestors, nearest first (at most `max`): who we run inside of. */
export function ancestorPids(start = process.pid, max = 32): number[] {
  const out: number[] = [];
  for (let p: number | null = start; p !== null && p > 1 && out.length < max; p = parentPid(p)) out.push(p);
  return out;
}

function readTrim(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Linux's boot id (Qwen Code's `procStart` is `<boot_id>:<start ticks>`). */
export function bootId(): string | null {
  return readTrim('/proc/sys/kernel/random/boot_id');
}

/**
 * Which machine and pid namespace a pid means, as Claude Code writes `pidDomain` on Linux:
 * `linux:<machine-id>:<readlink /proc/self/ns/pid>`. Null elsewhere (not compared there).
 */
export function pidDomain(): string | null {
  if (process.platform !== 'linux') return null;
  const machine = readTrim('/etc/machine-id');
  let ns: string | null = null;
  try {
    ns = readlinkSync('/proc/self/ns/pid');
  } catch {
    ns = null;
  }
  return machine && ns ? `linux:${machine}:${ns}` : null;
}

/** This process's pid namespace as Qwen Code records it (`pidNs`: the inode of `/proc/self/ns/pid`); null off Linux. */
export function pidNamespaceIno(): number | null {
  if (process.platform !== 'linux') return null;
  try {
    return statSync('/proc/self/ns/pid').ino;
  } catch {
    return null;
  }
}

/** A process's command line (Linux `/proc/<pid>/cmdline`, NULs as spaces); null where it cannot be read. */
export function commandLineOf(pid: number, platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== 'linux') return null;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return null;
  }
}

/** What a recorded (pid, start time) is now. */
export type PidState = 'alive' | 'gone' | 'reused';

/**
 * A recorded process checked now: gone, alive with the recorded start time (or when none can be
 * compared: no record, or not readable here), or alive but another process (pid reused).
 * `start` maps our reading to the agent's format (Qwen prefixes the boot id).
 */
export function pidState(pid: number, recordedStart: string | null | undefined, start: (pid: number) => string | null = procStartOf): PidState {
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return 'gone';
  if (!recordedStart) return 'alive';
  const now = start(pid);
  if (now === null) return processAlive(pid) ? 'alive' : 'gone';
  return now === recordedStart ? 'alive' : 'reused';
}

/**
 * A recorded pid whose start time was not recorded (Qwen's `runtime.json`, Copilot's `inuse.<pid>.lock`),
 * checked by its program instead: gone, alive running `program` (or its command line cannot be read
 * here), or reused by another program.
 */
export function pidRuns(pid: number, program: RegExp, platform: NodeJS.Platform = process.platform): PidState {
  if (pidState(pid, null) !== 'alive') return 'gone';
  const cmd = commandLineOf(pid, platform);
  if (cmd === null) return processAlive(pid) ? 'alive' : 'gone';
  return program.test(cmd) ? 'alive' : 'reused';
}
