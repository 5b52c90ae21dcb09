import { lstat, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { connectRpc, RpcCallError, type RpcConnection } from '../../io/ws-rpc.js';

/**
 * Codex's running app-server daemon, asked over its control socket (FORMATS.md §2d): the TUI's
 * daemon loads the thread and writes its rollout, and is the one process that can change a thread
 * it holds. `$CODEX_HOME/app-server-control/app-server-control.sock` (a link to
 * `/tmp/codex-daemon-<uid>/<hash>`) speaks WebSocket, one JSON-RPC message per text frame; the
 * methods used are the app-server protocol's stable v2 ones (`codex app-server generate-ts`):
 * `initialize`, `thread/read`, `thread/turns/list`, `thread/revert`.
 */

/** A turn of a loaded thread as the daemon lists it: its id, status and the text of its user messages. */
export interface DaemonTurn {
  id: string;
  status: string;
  prompts: string[];
}

export interface CodexDaemon {
  /** `idle`, `active` (mid-turn), `notLoaded`, ...; null when the daemon does not know the thread. */
  status(threadId: string): Promise<string | null>;
  /** Every turn of a loaded thread, oldest first. */
  turns(threadId: string): Promise<DaemonTurn[]>;
  /** Drops `beforeTurnId` and every later turn from the thread's history (a new generation file); the path Codex now writes, when it says. */
  revert(threadId: string, beforeTurnId: string): Promise<{ path: string | null }>;
  close(): void;
}

export const CONTROL_SOCKET = join('app-server-control', 'app-server-control.sock');

/**
 * The control socket of the daemon serving `home`, or null: a socket of this user (the link Codex
 * makes in its home, resolved: a Unix socket path is limited to ~100 bytes, its target is short).
 */
export async function controlSocket(home: string): Promise<string | null> {
  const link = join(home, CONTROL_SOCKET);
  if (!(await lstat(link).catch(() => null))) return null;
  const target = await realpath(link).catch(() => null);
  if (!target) return null;
  const st = await stat(target).catch(() => null);
  if (!st?.isSocket()) return null;
  // Never a socket another user made: the daemon runs as the user whose home this is.
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return null;
  return target;
}

type WireTurn = { id?: unknown; status?: unknown; items?: { type?: unknown; content?: { type?: unknown; text?: unknown }[] }[] };

function turnOf(t: WireTurn): DaemonTurn | null {
  if (typeof t.id !== 'string') return null;
  const prompts: string[] = [];
  for (const item of t.items ?? []) {
    if (item.type !== 'userMessage') continue;
    prompts.push((item.content ?? []).filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string).join('\n'));
  }
  return { id: t.id, status: typeof t.status === 'string' ? t.status : 'unknown', prompts };
}

/** Connects and initializes; null when no daemon answers at `home` (none running, or another Codex). */
export async function connectDaemon(home: string, timeoutMs = 10_000): Promise<CodexDaemon | null> {
  const socket = await controlSocket(home);
  if (!socket) return null;
  let rpc: RpcConnection;
  try {
    rpc = await connectRpc(socket, { timeoutMs });
    await rpc.call('initialize', { clientInfo: { name: 'rewind', title: 'Rewind', version: '1' } });
  } catch {
    return null;
  }
  rpc.notify('initialized');
  return {
    async status(threadId) {
      try {
        const r = await rpc.call<{ thread?: { status?: { type?: unknown } } }>('thread/read', { threadId, includeTurns: false });
        return typeof r.thread?.status?.type === 'string' ? r.thread.status.type : null;
      } catch (e) {
        if (e instanceof RpcCallError) return null;
        throw e;
      }
    },
    async turns(threadId) {
      const out: DaemonTurn[] = [];
      let cursor: string | null = null;
      // Pages of turns, oldest first, until the daemon has no cursor left (bounded: a daemon that keeps answering is not followed forever).
      for (let page = 0; page < 10_000; page++) {
        const r: { data?: WireTurn[]; nextCursor?: unknown } = await rpc.call('thread/turns/list', { threadId, sortDirection: 'asc', limit: 100, itemsView: 'summary', ...(cursor ? { cursor } : {}) });
        for (const t of r.data ?? []) {
          const turn = turnOf(t);
          if (turn) out.push(turn);
        }
        cursor = typeof r.nextCursor === 'string' && r.nextCursor ? r.nextCursor : null;
        if (!cursor) return out;
      }
      throw new Error('thread/turns/list did not end');
    },
    async revert(threadId, beforeTurnId) {
      const r = await rpc.call<{ thread?: { path?: unknown } }>('thread/revert', { threadId, beforeTurnId }, 60_000);
      return { path: typeof r.thread?.path === 'string' ? r.thread.path : null };
    },
    close: () => rpc.close(),
  };
}
