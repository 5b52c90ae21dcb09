import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { statFields } from './process-alive.js';

/** A running process: its argv and working folder. */
export interface ProcessInfo {
  pid: number;
  ppid: number | null;
  argv: string[];
  cwd: string | null;
}

function linuxProcesses(want: (argv: string[]) => boolean): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
    } catch {
      continue;
    }
    if (argv.length === 0 || !want(argv)) continue;
    let cwd: string | null = null;
    try {
      cwd = readlinkSync(`/proc/${name}/cwd`);
    } catch {
      cwd = null;
    }
    let ppid: number | null = null;
    try {
      ppid = Number(statFields(readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1]) || null;
    } catch {
      ppid = null;
    }
    out.push({ pid: Number(name), ppid, argv, cwd });
  }
  return out;
}

/** macOS (and other Unix): `ps` for the command lines (split on spaces: argv with spaces is approximate), `lsof` for a match's cwd. */
function psProcesses(want: (argv: string[]) => boolean): ProcessInfo[] {
  let text = '';
  try {
    text = execFileSync('ps', ['-axo', 'pid=,ppid=,command='], { encoding: 'utf8', timeout: 5000, maxBuffer: 32 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return [];
  }
  const out: ProcessInfo[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const argv = m[3]!.split(' ').filter((a) => a !== '');
    if (!want(argv)) continue;
    let cwd: string | null = null;
    try {
      const l = execFileSync('lsof', ['-a', '-p', m[1]!, '-d', 'cwd', '-Fn'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
      cwd = l.split('\n').find((x) => x.startsWith('n'))?.slice(1) ?? null;
    } catch {
      cwd = null;
    }
    out.push({ pid: Number(m[1]), ppid: Number(m[2]) || null, argv, cwd });
  }
  return out;
}

/**
 * Running processes whose argv `want`s, with their working folder: Linux from `/proc`, macOS from
 * `ps` and `lsof`. Windows: none (another process's working folder needs native code there).
 */
export function processesMatching(want: (argv: string[]) => boolean, platform: NodeJS.Platform = process.platform): ProcessInfo[] {
  if (platform === 'linux') return linuxProcesses(want);
  if (platform === 'win32') return [];
  return psProcesses(want);
}
