import { mkdirSync, chmodSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { dirname } from 'node:path';

export { socketPath } from './socket-path.js';

export interface ForwardRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface ForwardResponse {
  code: number;
  stdout: string;
  stderr: string;
}

export type CommandRunner = (req: ForwardRequest) => Promise<ForwardResponse>;

/** Is something answering on this socket? */
export function probe(path: string, timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection(path);
    const t = setTimeout(() => {
      c.destroy();
      resolve(false);
    }, timeoutMs);
    c.once('connect', () => {
      clearTimeout(t);
      c.end();
      resolve(true);
    });
    c.once('error', () => {
      clearTimeout(t);
      resolve(false);
    });
  });
}

/**
 * Listens for CLI commands forwarded by `rewind-app back|restore|checkpoint|undo` while the app
 * runs: one JSON line in, one JSON line out. Returns null when another instance already listens
 * (there is a single writer).
 */
export async function startSocketDoor(path: string, runner: CommandRunner): Promise<{ path: string; close(): Promise<void> } | null> {
  if (process.platform !== 'win32') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    if (await probe(path)) return null;
    await unlink(path).catch(() => undefined); // a stale socket from a crashed instance
  }
  const server: Server = createServer((conn) => {
    let buf = '';
    conn.setEncoding('utf8');
    conn.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl === -1) {
        if (buf.length > 1024 * 1024) conn.destroy();
        return;
      }
      const line = buf.slice(0, nl);
      buf = '';
      void (async () => {
        let res: ForwardResponse;
        try {
          const req = JSON.parse(line) as ForwardRequest;
          if (!Array.isArray(req.argv) || !req.argv.every((a) => typeof a === 'string') || typeof req.cwd !== 'string') throw new Error('bad request');
          res = await runner({ argv: req.argv, cwd: req.cwd, env: req.env && typeof req.env === 'object' ? req.env : {} });
        } catch (e) {
          res = { code: 2, stdout: '', stderr: `rewind-app: forwarded request rejected: ${e instanceof Error ? e.message : 'bad request'}\n` };
        }
        conn.end(`${JSON.stringify(res)}\n`);
      })();
    });
    conn.on('error', () => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  if (process.platform !== 'win32') chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        if (process.platform !== 'win32') void unlink(path).catch(() => undefined);
      }),
  };
}

/** The CLI side: send a command to the running app; null when none answers. */
export function forward(path: string, req: ForwardRequest, timeoutMs = 10 * 60_000): Promise<ForwardResponse | null> {
  return new Promise((resolve) => {
    const c = createConnection(path);
    let buf = '';
    let connected = false;
    const t = setTimeout(() => {
      c.destroy();
      resolve(connected ? { code: 1, stdout: '', stderr: 'rewind-app: the app did not answer in time\n' } : null);
    }, timeoutMs);
    c.setEncoding('utf8');
    c.once('connect', () => {
      connected = true;
      c.write(`${JSON.stringify(req)}\n`);
    });
    c.on('data', (d: string) => (buf += d));
    c.once('end', () => {
      clearTimeout(t);
      try {
        resolve(JSON.parse(buf.trim()) as ForwardResponse);
      } catch {
        resolve({ code: 1, stdout: '', stderr: 'rewind-app: the app sent a broken answer\n' });
      }
    });
    c.once('error', () => {
      clearTimeout(t);
      resolve(connected ? { code: 1, stdout: '', stderr: 'rewind-app: lost the connection to the app\n' } : null);
    });
  });
}
