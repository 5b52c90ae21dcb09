import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { lockHolder } from '../../io/lock-probe.js';
import type { OpenMarker } from '../adapter.js';

/** The daemon's pid from `app-server-daemon/daemon.pid` (`{pid, ...}`), when the lock probe cannot name the holder. */
async function daemonPid(home: string): Promise<number | null> {
  const text = await readFile(join(home, 'app-server-daemon', 'daemon.pid'), 'utf8').catch(() => null);
  try {
    const pid = text === null ? null : (JSON.parse(text) as { pid?: unknown }).pid;
    return typeof pid === 'number' && Number.isInteger(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Threads a Codex process holds (FORMATS.md §2d): `$CODEX_HOME/thread-writer-locks/<id>.lock`
 * with an exclusive lock taken by its app-server daemon, which keeps it up to ~60 s after the TUI
 * quits. A lock file nobody holds is a crash's leftover. Where the lock cannot be probed
 * (Windows), an existing lock file counts as held (`codex app-server daemon stop` releases it).
 */
export async function codexOpenSessions(home: string): Promise<OpenMarker[]> {
  const dir = join(home, 'thread-writer-locks');
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.lock') && !n.startsWith('.'));
  const out: OpenMarker[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const holder = await lockHolder(path);
    if (holder && !holder.held) continue;
    const st = await stat(path).catch(() => null);
    if (!st) continue;
    out.push({ sessionId: name.slice(0, -'.lock'.length), cwd: null, pid: holder?.pid ?? (await daemonPid(home)) ?? 0, status: 'unknown', since: st.mtime.toISOString() });
  }
  return out;
}
