import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { commandOf, FORWARDED, run } from '../cli/main.js';
import { startHttpDoor, type HttpDoor } from './doors/http-door.js';
import { socketPath, startSocketDoor, type ForwardRequest, type ForwardResponse } from './doors/socket-door.js';
import { RewindService, type ServiceOptions } from './service/rewind-service.js';

export interface Runtime {
  service: RewindService;
  http: HttpDoor | null;
  socket: { path: string; close(): Promise<void> } | null;
  close(): Promise<void>;
}

/** Runs a forwarded CLI command in this process, exactly as the CLI would, and tells the UI. */
export function commandRunner(service: RewindService, self: ServiceOptions['cli']) {
  return async (req: ForwardRequest): Promise<ForwardResponse> => {
    // Only what the CLI forwards, from a real directory: `serve` over the socket, or a relative
    // cwd resolved against the app's own, are refused.
    const command = commandOf(req.argv);
    if (!command || !FORWARDED.has(command)) return { code: 2, stdout: '', stderr: `rewind-app: the app performs only ${[...FORWARDED].join(', ')} (got ${command ?? 'no command'})\n` };
    if (!isAbsolute(req.cwd)) return { code: 2, stdout: '', stderr: 'rewind-app: forwarded request rejected: cwd must be an absolute path\n' };
    let stdout = '';
    let stderr = '';
    const code = await run(req.argv, {
      out: (t) => (stdout += t.endsWith('\n') ? t : `${t}\n`),
      err: (t) => (stderr += t.endsWith('\n') ? t : `${t}\n`),
      env: { ...req.env },
      cwd: req.cwd,
      inApp: true,
      self,
    });
    service.emit({ type: 'operationFinished', id: `cli-${Date.now()}`, operation: req.argv[0] ?? 'command', ok: code === 0, summary: (stdout.trim().split('\n')[0] || stderr.trim().split('\n').pop()) ?? '', output: stdout + stderr });
    service.emit({ type: 'sessionsChanged' });
    return { code, stdout, stderr };
  };
}

export function findDir(from: string, ...candidates: string[]): string | null {
  for (const c of candidates) {
    const p = join(from, c);
    if (existsSync(p)) return p;
  }
  return null;
}

/** The service with its HTTP and socket doors: what `rewind-app serve` runs. */
export async function startRuntime(opts: ServiceOptions & { http?: { port?: number; host?: string; rendererDir: string | null } | null; env?: NodeJS.ProcessEnv }): Promise<Runtime> {
  // A window's start: the first list waits for nothing but the persisted index.
  const service = new RewindService({ deferWatch: true, ...opts });
  await service.start();
  // A refused door (a non-loopback host, a busy port) closes what was started, so the process ends.
  const http = opts.http
    ? await startHttpDoor(service, opts.http).catch(async (e: unknown) => {
        await service.close().catch(() => undefined);
        throw e;
      })
    : null;
  const socket = await startSocketDoor(socketPath(opts.env), commandRunner(service, opts.cli)).catch(() => null);
  return {
    service,
    http,
    socket,
    close: async () => {
      await http?.close();
      await socket?.close();
      await service.close();
    },
  };
}
