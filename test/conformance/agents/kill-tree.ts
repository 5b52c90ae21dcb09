import { readdirSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';

/** Each live process's parent, from /proc (Linux; these tiers drive `script`, which is Linux's). */
function parents(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      byParent.set(ppid, [...(byParent.get(ppid) ?? []), pid]);
    } catch {
      // gone meanwhile
    }
  }
  return byParent;
}

/**
 * Stops a process and everything under it. `script` starts the CLI in a new session, and Gemini
 * CLI relaunches itself in a second node: killing `script` alone left both running after the test.
 */
export function killTree(child: ChildProcess): void {
  const root = child.pid;
  if (!root) return;
  const pids: number[] = [root];
  try {
    const byParent = parents();
    for (let i = 0; i < pids.length; i++) pids.push(...(byParent.get(pids[i]!) ?? []));
  } catch {
    // No /proc: the child alone.
  }
  for (const pid of pids.reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
