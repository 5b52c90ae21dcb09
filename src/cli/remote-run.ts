import { remoteFailure, sshRun } from '../engine/remote/ssh-run.js';
import { errBytes, outBytes, type CliIO } from './io.js';

declare const __APP_VERSION__: string;
export const LOCAL_VERSION = typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : 'dev';

/**
 * `--host NAME`: the same command, run on that host by its own rewind-app, next to its files.
 * What it prints and its exit code are the remote's; ssh's own failures are one line.
 */
export async function runOnHost(name: string, argv: string[], io: CliIO): Promise<number> {
  const { hostNamed, readRemotes, remotesFile } = await import('../engine/remote/remotes.js');
  const { hosts } = await readRemotes(remotesFile(io.env));
  const host = hostNamed(hosts, name);
  // The remote's bytes as they come (an export, a binary file's diff): never decoded here. A failed
  // ssh prints nothing on stdout; its stderr is gathered to say why in one line.
  const r = await sshRun(io.env, host.target, ['rewind-app', ...argv], { onStdout: (b) => outBytes(io, b) });
  const failed = remoteFailure(name, r, LOCAL_VERSION);
  if (failed) throw failed;
  if (r.stderr.length) errBytes(io, r.stderr);
  return r.code;
}

/** argv without `--host NAME` / `--host=NAME` (the rest goes to the remote as the user typed it). */
export function withoutHost(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (a === '--host') {
      i++;
      continue;
    }
    if (a.startsWith('--host=')) continue;
    out.push(a);
  }
  return out;
}
