import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startHttpDoor, type HttpDoor } from './doors/http-door.js';
import { socketPath, startSocketDoor, type CommandRunner } from './doors/socket-door.js';
import { RewindService, type ServiceOptions } from './service/rewind-service.js';

export interface Runtime {
  service: RewindService;
  http: HttpDoor | null;
  socket: { path: string; close(): Promise<void> } | null;
  close(): Promise<void>;
}

/**
 * Makes the runner for commands the CLI forwards to this app. The CLI's dispatcher lives a floor
 * up (`src/cli/in-app-runner.ts`) and `main` never imports `cli`: the entry that starts the app
 * hands it in.
 */
export type ForwardedCommands = (service: RewindService, self: ServiceOptions['cli']) => CommandRunner;

export function findDir(from: string, ...candidates: string[]): string | null {
  for (const c of candidates) {
    const p = join(from, c);
    if (existsSync(p)) return p;
  }
  return null;
}

/** The service with its HTTP and socket doors: what `rewind-app serve` runs. */
export async function startRuntime(opts: ServiceOptions & { http?: { port?: number; host?: string; rendererDir: string | null } | null; env?: NodeJS.ProcessEnv; forwarded: ForwardedCommands }): Promise<Runtime> {
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
  const socket = await startSocketDoor(socketPath(opts.env), opts.forwarded(service, opts.cli)).catch(() => null);
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
