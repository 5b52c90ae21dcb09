import WebSocket from 'ws';

/**
 * A JSON-RPC client over a WebSocket on a local socket (a Unix socket path, or a named pipe on
 * Windows): one message per text frame, requests answered by id, notifications (no id) ignored.
 * Used to talk to an agent's running daemon (Codex's app-server control socket, FORMATS.md §2d).
 * Every call has a deadline; a closed or failed connection fails every pending call.
 */

export interface RpcError {
  code: number;
  message: string;
}

export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly rpc: RpcError,
  ) {
    super(`${method}: ${rpc.message} (code ${rpc.code})`);
  }
}

export interface RpcConnection {
  call<T = unknown>(method: string, params?: unknown, timeoutMs?: number): Promise<T>;
  notify(method: string, params?: unknown): void;
  close(): void;
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string; timer: NodeJS.Timeout };

/** Connects to `socketPath` (HTTP Upgrade on `requestPath`); rejects when nothing answers within `timeoutMs`. */
export function connectRpc(socketPath: string, opts: { requestPath?: string; timeoutMs?: number } = {}): Promise<RpcConnection> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  // `ws+unix:<socket>:<request path>` is ws's spelling of a WebSocket over a local socket.
  const ws = new WebSocket(`ws+unix:${socketPath}:${opts.requestPath ?? '/'}`, { handshakeTimeout: timeoutMs, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
  const pending = new Map<number, Pending>();
  let next = 0;
  let closedWith: Error | null = null;
  const failAll = (e: Error) => {
    closedWith ??= e;
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(e);
    }
    pending.clear();
  };
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    let m: { id?: unknown; result?: unknown; error?: RpcError };
    try {
      m = JSON.parse(data.toString()) as typeof m;
    } catch {
      return;
    }
    if (typeof m.id !== 'number') return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.error) p.reject(new RpcCallError(p.method, m.error));
    else p.resolve(m.result);
  });
  ws.on('close', () => failAll(new Error('the connection was closed')));
  const conn: RpcConnection = {
    call<T>(method: string, params?: unknown, callTimeoutMs = timeoutMs): Promise<T> {
      if (closedWith) return Promise.reject(closedWith);
      const id = ++next;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${method}: no answer within ${Math.round(callTimeoutMs / 1000)} s`));
        }, callTimeoutMs);
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method, timer });
        ws.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }), (err) => {
          if (!err) return;
          pending.delete(id);
          clearTimeout(timer);
          reject(err);
        });
      });
    },
    notify(method: string, params?: unknown): void {
      if (!closedWith) ws.send(JSON.stringify(params === undefined ? { method } : { method, params }));
    },
    close(): void {
      failAll(new Error('the connection was closed'));
      ws.close();
      // A peer that never answers the close frame must not keep the process alive.
      setTimeout(() => ws.terminate(), 1000).unref();
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.removeAllListeners('error');
      ws.on('error', (e) => failAll(e));
      resolve(conn);
    });
    ws.once('error', (e) => {
      failAll(e);
      reject(e);
    });
  });
}
