import { isAbsolute } from 'node:path';
import type { CommandRunner, ForwardRequest, ForwardResponse } from '../main/doors/socket-door.js';
import type { RewindService, ServiceOptions } from '../main/service/rewind-service.js';
import { commandOf, FORWARDED, run } from './main.js';

/**
 * Runs a forwarded CLI command in the app's process, exactly as the CLI would, and tells the UI.
 * It lives on the cli floor (it is the CLI's dispatcher): `main` never imports `cli`, so the
 * entries that start an app (`serve`, the Electron entry `electron-main.ts`) hand it in.
 */
export function inAppRunner(service: RewindService, self: ServiceOptions['cli']): CommandRunner {
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
