import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { OPERATION_NAMES } from '../../shared/operations.js';
import type { RewindService } from '../service/rewind-service.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const MAX_BODY = 1024 * 1024;
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface HttpDoor {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export interface HttpDoorOptions {
  port?: number;
  host?: string;
  rendererDir: string | null;
  token?: string;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieToken(req: IncomingMessage): string | null {
  const m = /(?:^|;\s*)rewind_token=([0-9a-f]+)/.exec(req.headers.cookie ?? '');
  return m ? m[1]! : null;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  res.end(text);
}

/**
 * Browser mode: the renderer and the same contract over HTTP + server-sent events, on loopback
 * only, behind a random token. Host and Origin must be loopback too (no DNS rebinding, no other
 * site's page driving it).
 */
export async function startHttpDoor(service: RewindService, opts: HttpDoorOptions): Promise<HttpDoor> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(host)) throw new Error(`refusing to listen on ${host}: browser mode is loopback only (use an SSH tunnel for remote use)`);
  const token = opts.token ?? randomBytes(24).toString('hex');
  let port = 0;
  const allowedOrigins = () => [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];

  const server = createServer((req, res) => {
    void (async () => {
      let url: URL;
      let pathname: string;
      try {
        url = new URL(req.url ?? '/', 'http://placeholder');
        pathname = decodeURIComponent(url.pathname);
      } catch {
        return send(res, 400, { ok: false, error: { code: 'INVALID_REQUEST', message: 'malformed URL' } });
      }
      const hostHeader = req.headers.host ?? '';
      const hostName = hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.split(':')[0]!;
      if (!LOOPBACK_HOSTS.has(hostName)) return send(res, 403, { ok: false, error: { code: 'FORBIDDEN', message: 'Host is not loopback' } });
      const origin = req.headers.origin;
      // `Origin: null` (a sandboxed frame, a file: page, some redirects) is not this app either.
      if (origin !== undefined && !allowedOrigins().includes(origin)) return send(res, 403, { ok: false, error: { code: 'FORBIDDEN', message: 'Origin is not this app' } });
      const given = url.searchParams.get('token') ?? cookieToken(req) ?? (req.headers['x-rewind-token'] as string | undefined) ?? req.headers.authorization?.replace(/^Bearer /, '') ?? '';
      if (!given || !sameToken(given, token)) return send(res, 401, { ok: false, error: { code: 'UNAUTHORIZED', message: 'missing or wrong token: open the URL rewind-app printed' } });
      if (url.searchParams.has('token') && req.method === 'GET' && !url.pathname.startsWith('/api/')) {
        // Keep the token in a cookie and take it out of the address bar and history.
        url.searchParams.delete('token');
        res.writeHead(303, { location: `${url.pathname}${url.search}`, 'set-cookie': `rewind_token=${token}; HttpOnly; SameSite=Strict; Path=/`, 'cache-control': 'no-store' });
        return res.end();
      }
      if (url.pathname === '/api/events' && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-content-type-options': 'nosniff' });
        res.write(': connected\n\n');
        const off = service.onEvent((e) => res.write(`data: ${JSON.stringify(e)}\n\n`));
        const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
        req.on('close', () => {
          clearInterval(ping);
          off();
        });
        return;
      }
      if (url.pathname.startsWith('/api/')) {
        const name = url.pathname.slice('/api/'.length);
        if (req.method !== 'POST') return send(res, 405, { ok: false, error: { code: 'USAGE', message: 'use POST' } });
        if (!(OPERATION_NAMES as readonly string[]).includes(name)) return send(res, 404, { ok: false, error: { code: 'USAGE', message: `unknown operation "${name}"` } });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const c of req) {
          size += (c as Buffer).length;
          if (size > MAX_BODY) return send(res, 413, { ok: false, error: { code: 'INVALID_REQUEST', message: 'request too large' } });
          chunks.push(c as Buffer);
        }
        let payload: unknown;
        try {
          const raw = Buffer.concat(chunks).toString('utf8');
          payload = raw ? JSON.parse(raw) : {};
        } catch {
          return send(res, 400, { ok: false, error: { code: 'INVALID_REQUEST', message: 'body is not JSON' } });
        }
        const result = await service.handle(name, payload);
        return send(res, result.ok ? 200 : result.error.code === 'INVALID_REQUEST' ? 400 : 200, result);
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
      if (!opts.rendererDir) return send(res, 404, 'the UI is not built: run npm run build');
      const root = resolve(opts.rendererDir);
      const rel = normalize(pathname).replace(/^[/\\]+/, '');
      let file = resolve(root, rel || 'index.html');
      if (file !== root && !file.startsWith(root + sep)) return send(res, 403, 'forbidden');
      const st = await stat(file).catch(() => null);
      if (!st?.isFile()) file = join(root, 'index.html');
      const body = await readFile(file).catch(() => null);
      if (!body) return send(res, 404, 'not found');
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': file.endsWith('index.html') ? 'no-store' : 'max-age=3600',
        'x-content-type-options': 'nosniff',
        'content-security-policy': CSP,
        'referrer-policy': 'no-referrer',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    })().catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, { ok: false, error: { code: 'INTERNAL', message: e instanceof Error ? e.message.split('\n')[0] : 'internal error' } });
    });
  });
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolvePromise());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
