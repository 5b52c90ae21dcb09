import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RewindError } from '../../engine/errors.js';
import { findDir, startRuntime } from '../../main/app-runtime.js';
import type { ServiceOptions } from '../../main/service/rewind-service.js';
import { inAppRunner } from '../in-app-runner.js';
import type { CliIO } from '../io.js';

declare const __APP_VERSION__: string;

export interface ServeArgs {
  port?: string;
  host?: string;
  claudeDir?: string;
  demo?: boolean;
}

/** The service as `serve` runs it (browser mode, or `--stdio` for a window on another machine). */
export function serviceOptions(args: { claudeDir?: string; demo?: boolean }, io: CliIO): ServiceOptions & { rendererDir: string | null } {
  const here = dirname(fileURLToPath(import.meta.url));
  // Built: this code sits in out/cli/lazy/ or, shared with serve --stdio, out/cli/lazy/chunks/ ->
  // out/renderer, resources/; from source: src/cli/commands -> out/renderer.
  const rendererDir = findDir(here, '../renderer', '../../renderer', '../../../renderer', '../../../out/renderer', '../../out/renderer');
  const resourcesDir = findDir(here, '../../resources', '../../../resources', '../../../../resources');
  const workerScript = findDir(here, '../engine-worker.mjs', 'engine-worker.mjs');
  return {
    claudeRoot: args.claudeDir ?? (io.env.CLAUDE_CONFIG_DIR || undefined),
    demo: args.demo,
    resourcesDir: resourcesDir ?? undefined,
    workerScript: workerScript ?? undefined,
    cli: io.self,
    version: typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : 'dev',
    env: io.env,
    rendererDir,
  };
}

/** Browser mode: the app's service on loopback, until Ctrl-C. */
export async function serveCommand(args: ServeArgs, io: CliIO, opts: { untilSignal?: boolean } = {}): Promise<number> {
  const port = args.port === undefined ? 0 : Number(args.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RewindError('USAGE', `--port takes 0-65535 (got "${args.port}")`);
  const { rendererDir, ...service } = serviceOptions(args, io);
  // Listening for Ctrl-C before anything is made: a stop that comes while starting, or as soon as
  // the URL is out, still closes the service (and removes the demo copy) instead of killing it.
  const stopped = opts.untilSignal === false ? null : untilStopped();
  const rt = await startRuntime({
    ...service,
    http: { port, host: args.host ?? '127.0.0.1', rendererDir },
    remotes: true,
    forwarded: inAppRunner,
  }).catch((e: unknown) => {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new RewindError('USAGE', `port ${port} is in use (try --port 0)`);
    if (e instanceof Error && /^refusing to listen/.test(e.message)) throw new RewindError('USAGE', e.message);
    throw e;
  });
  io.out(`Rewind is running at ${rt.http!.url}`);
  io.err(`${rt.service.demo ? 'Showing the bundled demo' : `Reading ${rt.service.claudeRoot}`}. ${rendererDir ? '' : 'The UI is not built (npm run build): only the API is served. '}Stop with Ctrl-C.`);
  if (!rt.socket) io.err('Another Rewind is already running: terminal commands go to that one.');
  if (!stopped) return 0;
  // A stray rejection in a background refresh is logged, not allowed to take the service down.
  process.on('unhandledRejection', (e) => io.err(`rewind: background task failed: ${e instanceof Error ? e.message : String(e)}`));
  await stopped;
  await rt.close();
  return 0;
}

function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      // Ctrl-C must always end it: a second signal, or a handle that outlives close(), exits now.
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      setTimeout(() => process.exit(0), 3000).unref();
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
