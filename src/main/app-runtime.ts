import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../cli/main.js';
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
  const service = new RewindService(opts);
  await service.start();
  const http = opts.http ? await startHttpDoor(service, opts.http) : null;
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
