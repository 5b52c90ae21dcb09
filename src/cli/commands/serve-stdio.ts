import { hostname } from 'node:os';
import { startStdioDoor } from '../../main/doors/stdio-door.js';
import { RewindService } from '../../main/service/rewind-service.js';
import type { CliIO } from '../io.js';
import { serviceOptions } from './serve.js';

/**
 * `serve --stdio`: the service for a Rewind on another machine, over the pipe of the user's ssh.
 * Standard output carries only protocol frames: anything else the process would print goes to
 * standard error, which ssh shows the other side as ssh's own. It does not reach remote hosts of
 * its own (no chains of hosts).
 */
export async function serveStdioCommand(args: { claudeDir?: string; demo?: boolean }, io: CliIO): Promise<number> {
  console.log = console.info = console.warn = (...a: unknown[]) => process.stderr.write(`${a.map(String).join(' ')}\n`);
  const { rendererDir: _ui, ...opts } = serviceOptions(args, io);
  const service = new RewindService({ ...opts, deferWatch: true });
  await service.start();
  process.on('unhandledRejection', (e) => process.stderr.write(`rewind: background task failed: ${e instanceof Error ? e.message : String(e)}\n`));
  await startStdioDoor(service, { input: process.stdin, output: process.stdout, version: opts.version ?? 'dev', hostname: hostname() });
  await service.close();
  return 0;
}
