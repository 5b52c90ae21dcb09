import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findDir } from '../../main/app-runtime.js';
import { startStdioDoor } from '../../main/doors/stdio-door.js';
import { RewindService } from '../../main/service/rewind-service.js';
import type { CliIO } from '../io.js';

declare const __APP_VERSION__: string;

/**
 * `serve --stdio`: the service for a Rewind on another machine, over the pipe of the user's ssh.
 * Standard output carries only protocol frames: anything else the process would print goes to
 * standard error, which ssh shows the other side as ssh's own.
 */
export async function serveStdioCommand(args: { claudeDir?: string; demo?: boolean }, io: CliIO): Promise<number> {
  console.log = console.info = console.warn = (...a: unknown[]) => process.stderr.write(`${a.map(String).join(' ')}\n`);
  const here = dirname(fileURLToPath(import.meta.url));
  const resourcesDir = findDir(here, '../../resources', '../../../resources', '../../../../resources');
  const workerScript = findDir(here, '../engine-worker.mjs', 'engine-worker.mjs');
  const service = new RewindService({
    claudeRoot: args.claudeDir ?? (io.env.CLAUDE_CONFIG_DIR || undefined),
    demo: args.demo,
    resourcesDir: resourcesDir ?? undefined,
    workerScript: workerScript ?? undefined,
    cli: io.self,
    version: typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : 'dev',
    env: io.env,
    deferWatch: true,
  });
  await service.start();
  process.on('unhandledRejection', (e) => process.stderr.write(`rewind: background task failed: ${e instanceof Error ? e.message : String(e)}\n`));
  await startStdioDoor(service, { input: process.stdin, output: process.stdout, version: typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : 'dev', hostname: hostname() });
  await service.close();
  return 0;
}
