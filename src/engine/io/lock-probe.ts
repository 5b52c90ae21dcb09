import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';

/** Whether another process holds an exclusive `flock` on a file, and which (when the system says). */
export interface LockHolder {
  held: boolean;
  /** The holder's pid (Linux `/proc/locks` names it); null when unknown. */
  pid: number | null;
}

/** Linux's `dev_t` split as `/proc/locks` prints it (`%02x:%02x`). */
export function devName(dev: number): string {
  const major = ((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & ~0xfff);
  const minor = (dev & 0xff) | ((dev >>> 12) & ~0xff & 0xfffff);
  return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
}

/**
 * The pid holding a FLOCK on the inode `ino` (of device `dev`, when given) in `/proc/locks` text;
 * null when none. The inode alone also matches: on overlay file systems the lock names the
 * underlying device, not the one `stat` reports.
 */
export function flockHolderIn(locks: string, ino: number, dev?: string): number | null {
  let loose: number | null = null;
  for (const line of locks.split('\n')) {
    // "1: FLOCK  ADVISORY  WRITE 9826 fe:00:2146885 0 EOF" (a "->" line is a waiter: skipped).
    const m = /^\d+:\s+FLOCK\s+\S+\s+\S+\s+(\d+)\s+([0-9a-f]+:[0-9a-f]+):(\d+)\s/.exec(line);
    if (!m || Number(m[3]) !== ino) continue;
    if (dev === undefined || m[2] === dev) return Number(m[1]);
    loose ??= Number(m[1]);
  }
  return loose;
}

function run(cmd: string, args: string[]): Promise<number | null> {
  return new Promise((res) => {
    execFile(cmd, args, { timeout: 3000, windowsHide: true }, (err) => {
      if (!err) return res(0);
      const code = (err as NodeJS.ErrnoException & { code?: unknown }).code;
      res(typeof code === 'number' ? code : null);
    });
  });
}

// Try-lock, release at once; exit 1 when another process holds it. Perl ships with macOS and
// most Linux systems, `flock(1)` with util-linux.
const PERL_PROBE = 'use Fcntl ":flock"; open(F, "<", $ARGV[0]) or exit 2; exit(flock(F, LOCK_EX | LOCK_NB) ? 0 : 1)';

/**
 * Is this file locked by another process (`flock(LOCK_EX)`, what Codex's writer takes)? Node has
 * no flock, and no native module may be added, so: on Linux `/proc/locks` is read (no lock is
 * taken, so the holder is never raced); elsewhere, or when it cannot be read, a try-lock by
 * `flock -n` or `perl` (it holds the lock for an instant). Null when nothing could tell (Windows:
 * `LockFileEx` locks cannot be probed without native code).
 */
export async function lockHolder(path: string, platform: NodeJS.Platform = process.platform): Promise<LockHolder | null> {
  const st = await stat(path).catch(() => null);
  if (!st) return { held: false, pid: null };
  if (platform === 'linux') {
    const locks = await readFile('/proc/locks', 'utf8').catch(() => null);
    if (locks !== null) {
      const pid = flockHolderIn(locks, st.ino, devName(st.dev));
      return { held: pid !== null, pid };
    }
  }
  if (platform === 'win32') return null;
  for (const [cmd, args] of [
    ['flock', ['-n', '-x', path, 'true']],
    ['perl', ['-e', PERL_PROBE, path]],
  ] as const) {
    const code = await run(cmd, [...args]);
    if (code === 0) return { held: false, pid: null };
    if (code === 1) return { held: true, pid: null };
  }
  return null;
}
