import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { statFields } from './process-alive.js';

/** A running process: its argv, working folder and when it started. */
export interface ProcessInfo {
  pid: number;
  ppid: number | null;
  argv: string[];
  cwd: string | null;
  /** Ms since the epoch the process started (Linux: to the boot clock's second; macOS: `ps` lstart, to the second); null: unknown. */
  startedAt?: number | null;
}

/** The processes of one look at the machine: every argv read once, the details of those asked for. */
export interface ProcessTable {
  matching(want: (argv: string[]) => boolean): ProcessInfo[];
}

/** Linux's clock ticks a second for `/proc/<pid>/stat` (USER_HZ, 100 on every Linux ABI). */
const USER_HZ = 100;

function bootTimeMs(): number | null {
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return m ? Number(m[1]) * 1000 : null;
  } catch {
    return null;
  }
}

function linuxArgvs(): { pid: number; argv: string[] }[] {
  const all: { pid: number; argv: string[] }[] = [];
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    names = [];
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
      if (argv.length > 0) all.push({ pid: Number(name), argv });
    } catch {
      // gone since the listing
    }
  }
  return all;
}

function linuxTable(): ProcessTable {
  let all: { pid: number; argv: string[] }[] | null = null;
  return {
    matching(want) {
      all ??= linuxArgvs();
      const boot = bootTimeMs();
      const out: ProcessInfo[] = [];
      for (const { pid, argv } of all) {
        if (!want(argv)) continue;
        let cwd: string | null = null;
        try {
          cwd = readlinkSync(`/proc/${pid}/cwd`);
        } catch {
          cwd = null;
        }
        let fields: string[] | null = null;
        try {
          fields = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
        } catch {
          fields = null;
        }
        const ticks = Number(fields?.[19]);
        const startedAt = boot !== null && Number.isFinite(ticks) ? boot + (ticks * 1000) / USER_HZ : null;
        out.push({ pid, ppid: Number(fields?.[1]) || null, argv, cwd, startedAt });
      }
      return out;
    },
  };
}

/** `ps -o lstart` (C locale, UTC): `Sat Nov 28 08:53:43 2026`. */
const LSTART = /^\s*(\d+)\s+(\d+)\s+(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\s+(.*)$/;

/** macOS (and other Unix): one `ps` for the command lines (split on spaces: argv with spaces is approximate) and start times, `lsof` for a match's cwd. */
function ps(columns: string): string {
  try {
    return execFileSync('ps', ['-axo', columns], { encoding: 'utf8', timeout: 5000, maxBuffer: 32 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, LC_ALL: 'C', TZ: 'UTC' } });
  } catch {
    return '';
  }
}

function psAll(): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const line of ps('pid=,ppid=,lstart=,command=').split('\n')) {
    const m = LSTART.exec(line);
    if (!m) continue;
    const started = Date.parse(`${m[3]} GMT`);
    all.push({ pid: Number(m[1]), ppid: Number(m[2]) || null, argv: m[4]!.split(' ').filter((a) => a !== ''), cwd: null, startedAt: Number.isFinite(started) ? started : null });
  }
  if (all.length > 0) return all;
  // A `ps` without `lstart`: the processes, their start unknown.
  for (const line of ps('pid=,ppid=,command=').split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (m) all.push({ pid: Number(m[1]), ppid: Number(m[2]) || null, argv: m[3]!.split(' ').filter((a) => a !== ''), cwd: null, startedAt: null });
  }
  return all;
}

function psTable(): ProcessTable {
  let all: ProcessInfo[] | null = null;
  return {
    matching(want) {
      all ??= psAll();
      return all.filter((p) => want(p.argv)).map((p) => {
        let cwd: string | null = null;
        try {
          const l = execFileSync('lsof', ['-a', '-p', String(p.pid), '-d', 'cwd', '-Fn'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
          cwd = l.split('\n').find((x) => x.startsWith('n'))?.slice(1) ?? null;
        } catch {
          cwd = null;
        }
        return { ...p, cwd };
      });
    },
  };
}

/**
 * One look at the running processes (Linux from `/proc`, macOS from `ps` and `lsof`), to ask
 * several agents' questions of. Windows: none (another process's working folder needs native code there).
 */
export function processTable(platform: NodeJS.Platform = process.platform): ProcessTable {
  if (platform === 'linux') return linuxTable();
  if (platform === 'win32') return { matching: () => [] };
  return psTable();
}

/** Running processes whose argv `want`s, with their working folder and start time. */
export function processesMatching(want: (argv: string[]) => boolean, platform: NodeJS.Platform = process.platform): ProcessInfo[] {
  return processTable(platform).matching(want);
}
